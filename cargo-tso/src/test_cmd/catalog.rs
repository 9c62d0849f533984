//! The tests in the compiled units: `TSO_TEST*` functions found by name, and `main`.

use std::sync::Arc;

use inkwell::context::Context;
use test_support::{parse_test_symbol, Expectation};

use crate::settings::MemoryModel;
use crate::test_cmd::units::Unit;

#[derive(Debug, Clone)]
pub enum CaseKind {
    /// Check the module from `entry`.
    Check {
        entry: String,
        expectation: Expectation,
    },
    /// The unit has no module (compile error): the test fails with this message.
    Broken { message: String },
}

#[derive(Debug, Clone)]
pub struct TestCase {
    /// `<package>::<file stem>::<test>`, or `<package>::<file stem>` for `main`.
    pub name: String,
    pub unit: Arc<Unit>,
    pub kind: CaseKind,
    pub ignored: bool,
    /// The memory model the build script declares for this run of the test; `None`:
    /// the command line's.
    pub model: Option<MemoryModel>,
}

impl TestCase {
    /// What the test declares; `None` for a file that did not compile.
    pub fn expectation(&self) -> Option<Expectation> {
        match &self.kind {
            CaseKind::Check { expectation, .. } => Some(*expectation),
            CaseKind::Broken { .. } => None,
        }
    }
}

/// The test functions of one module, in module order.
fn entries(
    bitcode: &std::path::Path,
) -> Result<Vec<(String, Option<test_support::TestSymbol>)>, String> {
    let context = Context::create();
    let module = tso_engine::parse_module(&context, bitcode).map_err(|e| e.to_string())?;
    Ok(module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .filter_map(|f| {
            let name = f.get_name().to_string_lossy().into_owned();
            if name == "main" {
                Some((name, None))
            } else {
                parse_test_symbol(&name).map(|symbol| (name, Some(symbol)))
            }
        })
        .collect())
}

/// The tests of the units, each once per memory model its file declares: a test run
/// under several is named `name [model]` for each (as a sweep's rows are `name [sb=N]`),
/// so a name says which run it is whatever the command line selects.
pub fn cases(units: Vec<Unit>) -> Vec<TestCase> {
    let mut cases = Vec::new();
    for unit in units {
        let unit = Arc::new(unit);
        let prefix = format!("{}::{}", unit.package, unit.stem);
        let found = match &unit.bitcode {
            Ok(path) => entries(path),
            Err(message) => Err(message.clone()),
        };
        let models: Vec<Option<MemoryModel>> = match unit.memory_models.as_slice() {
            [] => vec![None],
            declared => declared.iter().copied().map(Some).collect(),
        };
        let named = |name: String, model: Option<MemoryModel>| match (models.len(), model) {
            (2.., Some(model)) => format!("{name} [{}]", model.as_str()),
            _ => name,
        };
        match found {
            Err(message) => {
                for &model in &models {
                    cases.push(TestCase {
                        name: named(prefix.clone(), model),
                        unit: Arc::clone(&unit),
                        kind: CaseKind::Broken {
                            message: message.clone(),
                        },
                        ignored: false,
                        model,
                    });
                }
            }
            Ok(entries) => {
                for (entry, symbol) in entries {
                    let (name, expectation, ignored) = match symbol {
                        Some(s) => (format!("{prefix}::{}", s.name), s.expectation, s.ignored),
                        None => (prefix.clone(), Expectation::ShouldPass, false),
                    };
                    for &model in &models {
                        cases.push(TestCase {
                            name: named(name.clone(), model),
                            unit: Arc::clone(&unit),
                            kind: CaseKind::Check {
                                entry: entry.clone(),
                                expectation,
                            },
                            ignored,
                            model,
                        });
                    }
                }
            }
        }
    }
    cases
}

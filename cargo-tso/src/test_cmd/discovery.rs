//! Finding the declared tests: cargo runs the build scripts (`cargo check
//! --message-format=json`: build scripts run in full, the crates themselves are only
//! checked), each writes its manifest into its `OUT_DIR`, and we read the manifests of
//! the selected packages. Packages that do not use test-support are not built at all.

use std::collections::BTreeSet;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{Message, Metadata, MetadataCommand, Package, PackageId};
use test_support::{Manifest, MANIFEST_FILE_NAME};

use crate::cli::CargoFlags;

/// Which packages to test and how cargo builds them, as on `cargo test`'s command
/// line.
#[derive(Debug, Clone, Default)]
pub struct PackageSelection {
    pub cargo: CargoFlags,
    pub quiet: bool,
}

impl PackageSelection {
    /// cargo's flags that apply to `cargo metadata` as well as to the build.
    fn lock_flags(&self) -> Vec<String> {
        let flags = &self.cargo;
        [
            (flags.locked, "--locked"),
            (flags.offline, "--offline"),
            (flags.frozen, "--frozen"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| flag.to_owned())
        .collect()
    }

    /// The arguments that make the build see the chosen features, profile, target
    /// directory, lock mode and job count.
    fn build_flags(&self) -> Vec<std::ffi::OsString> {
        let flags = &self.cargo;
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        for features in &flags.features {
            args.push("--features".into());
            args.push(features.into());
        }
        if flags.all_features {
            args.push("--all-features".into());
        }
        if flags.no_default_features {
            args.push("--no-default-features".into());
        }
        if flags.release {
            args.push("--release".into());
        }
        if let Some(profile) = &flags.profile {
            args.push("--profile".into());
            args.push(profile.into());
        }
        if let Some(dir) = &flags.target_dir {
            args.push("--target-dir".into());
            args.push(dir.into());
        }
        if let Some(jobs) = &flags.jobs {
            args.push("--jobs".into());
            args.push(jobs.into());
        }
        args.extend(self.lock_flags().into_iter().map(Into::into));
        args
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("cargo metadata failed: {0}")]
    Metadata(#[from] cargo_metadata::Error),
    #[error("package `{0}` is not a member of the workspace")]
    UnknownPackage(String),
    #[error("cannot run cargo: {0}")]
    Spawn(std::io::Error),
    #[error("could not build the packages (cargo check failed; see its errors above)")]
    BuildFailed,
    #[error("reading a test manifest: {0}")]
    Manifest(#[from] test_support::Error),
}

/// The packages' test manifests and where build output lives.
#[derive(Debug)]
pub struct Discovered {
    pub target_dir: PathBuf,
    pub manifests: Vec<Manifest>,
}

fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

/// The Cargo.toml cargo would use: the given one, or the nearest one upwards.
fn target_manifest(selection: &PackageSelection) -> Option<PathBuf> {
    if let Some(path) = &selection.cargo.manifest_path {
        return std::path::absolute(path).ok();
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|p| p.is_file())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The selected packages, following cargo: `-p` names, `--workspace` (minus
/// `--exclude`), the package of the manifest, or the workspace's default members for
/// a virtual manifest.
fn select<'m>(
    metadata: &'m Metadata,
    selection: &PackageSelection,
) -> Result<Vec<&'m Package>, DiscoveryError> {
    let members = metadata.workspace_packages();
    let flags = &selection.cargo;
    for excluded in &flags.exclude {
        // As cargo: excluding a package that is not there is worth a warning only.
        if !members.iter().any(|p| p.name.as_str() == excluded) {
            eprintln!("warning: excluded package `{excluded}` not found in the workspace");
        }
    }
    if !flags.packages.is_empty() {
        return flags
            .packages
            .iter()
            .map(|name| {
                members
                    .iter()
                    .copied()
                    .find(|p| p.name.as_str() == name)
                    .ok_or_else(|| DiscoveryError::UnknownPackage(name.clone()))
            })
            .collect();
    }
    if flags.workspace {
        return Ok(members
            .into_iter()
            .filter(|p| !flags.exclude.iter().any(|e| e == p.name.as_str()))
            .collect());
    }
    if let Some(manifest) = target_manifest(selection) {
        if let Some(package) = members
            .iter()
            .copied()
            .find(|p| same_file(p.manifest_path.as_std_path(), &manifest))
        {
            return Ok(vec![package]);
        }
    }
    if metadata.workspace_default_members.is_available() {
        return Ok(metadata.workspace_default_packages());
    }
    Ok(members)
}

/// Only packages whose build script uses test-support can declare tests.
fn declares_tests(package: &Package) -> bool {
    package
        .dependencies
        .iter()
        .any(|d| d.name == "test-support" && d.kind == cargo_metadata::DependencyKind::Build)
}

pub fn discover(selection: &PackageSelection) -> Result<Discovered, DiscoveryError> {
    let mut metadata_command = MetadataCommand::new();
    metadata_command
        .cargo_path(cargo())
        .no_deps()
        .other_options(selection.lock_flags());
    if let Some(path) = &selection.cargo.manifest_path {
        metadata_command.manifest_path(path);
    }
    let metadata = metadata_command.exec()?;
    let packages: Vec<&Package> = select(&metadata, selection)?
        .into_iter()
        .filter(|p| declares_tests(p))
        .collect();
    let selected: BTreeSet<&PackageId> = packages.iter().map(|p| &p.id).collect();
    let target_dir = match &selection.cargo.target_dir {
        Some(dir) => std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
        None => metadata.target_directory.clone().into_std_path_buf(),
    };
    if packages.is_empty() {
        return Ok(Discovered {
            target_dir,
            manifests: Vec::new(),
        });
    }

    let mut build = Command::new(cargo());
    build
        .arg("check")
        .arg("--message-format=json-render-diagnostics");
    if let Some(path) = &selection.cargo.manifest_path {
        build.arg("--manifest-path").arg(path);
    }
    for package in &packages {
        build.arg("-p").arg(package.name.as_str());
    }
    build.args(selection.build_flags());
    if selection.quiet {
        build.arg("--quiet");
    }
    let mut child = build
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(DiscoveryError::Spawn)?;
    let mut out_dirs: Vec<(PackageId, PathBuf)> = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for message in Message::parse_stream(BufReader::new(stdout)).flatten() {
            if let Message::BuildScriptExecuted(script) = message {
                if selected.contains(&script.package_id) {
                    out_dirs.push((script.package_id, script.out_dir.into_std_path_buf()));
                }
            }
        }
    }
    let status = child.wait().map_err(DiscoveryError::Spawn)?;
    if !status.success() {
        return Err(DiscoveryError::BuildFailed);
    }
    // Keep the packages' order as selected (workspace order), not cargo's build order.
    let mut manifests = Vec::new();
    for package in &packages {
        for (id, out_dir) in &out_dirs {
            let path = out_dir.join(MANIFEST_FILE_NAME);
            if id == &package.id && path.is_file() {
                manifests.push(Manifest::read(&path)?);
            }
        }
    }
    Ok(Discovered {
        target_dir,
        manifests,
    })
}

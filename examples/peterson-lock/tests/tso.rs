test_support::harness_main!();

//! test-support: declare C/C++ TSO tests from build.rs.

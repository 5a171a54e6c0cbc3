//! hearth's benchmarks (`cargo bench -p hearth-benches`): the bench targets are this package's
//! whole content; RESULTS.md has the figures, BUILD-TIMES.md the build times.

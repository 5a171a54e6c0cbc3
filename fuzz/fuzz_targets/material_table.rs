//! Arbitrary bytes parsed as `.hmat` by `MaterialTable::parse`; every row's accessors.
#![no_main]

use hearth::MaterialTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = MaterialTable::parse(data) else {
        return;
    };
    for row in table.rows.iter() {
        let _ = (row.alpha_mode(), row.double_sided(), row.texture_refs());
        std::hint::black_box(row);
    }
});

//! Arbitrary bytes parsed as `.hmat` (v1 or v2) by `MaterialTable::parse`; every row's
//! accessors, every property found again by `property`.
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
    for p in table.properties.iter() {
        assert_eq!(table.property(p.row, p.id), Some(p), "validated: sorted, each pair once");
    }
    std::hint::black_box(table.texture_refs().count());
});

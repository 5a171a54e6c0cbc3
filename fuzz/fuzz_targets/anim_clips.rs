//! Arbitrary bytes parsed as `.hanim` by `AnimClips::parse`: the first byte is the skeleton's
//! joint count (so both in-range and out-of-range joints are reached), the rest the file.
#![no_main]

use hearth::AnimClips;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&joints, bytes)) = data.split_first() else {
        return;
    };
    let Ok(anim) = AnimClips::parse(bytes, u32::from(joints)) else {
        return;
    };
    for clip in &anim.clips {
        let _ = (clip.name.len(), clip.duration);
        for channel in &clip.channels {
            assert!(channel.joint < u32::from(joints), "validated joint");
            assert_eq!(
                channel.values.len(),
                channel.times.len() * channel.path.components(),
                "one value set per key"
            );
        }
    }
});

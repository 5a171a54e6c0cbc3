//! UASTC encoding split into parallel tasks: a large level in slices of block rows, the small
//! levels together, each a task on the bake's worker pool (and in its timings).
//!
//! Without RDO, basisu encodes each 4x4 block from its own pixels alone (edge blocks from
//! clamped pixels, and a slice's last rows are the level's own last rows), so a level encoded
//! in row slices of a multiple of 4 rows has the same blocks as the level encoded whole. RDO
//! works over a window of neighbouring blocks: with it on, a level is never cut, only levels
//! are spread over tasks (basisu runs RDO per slice, i.e. per level and image, either way).
//! The split depends on the sizes and settings only, never on the thread count.

use crate::bake::texture::pixels::mip_size;
use crate::bake::texture::uastc::{self, UastcOptions, UastcSlice};
use crate::bake::timings;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// Pixels a task encodes at most when a level is cut into row slices, and at least when
/// small levels are put together: about 1/16 of a 2048² level 0, some tens of milliseconds of
/// UASTC `faster`.
pub(crate) const TASK_PIXELS: usize = 256 * 1024;

/// The pixels of one unit: a whole level of one image (owned, dropped once basisu has its
/// copy), or rows of one shared by the unit's sibling slices (dropped after the last).
enum Pixels {
    Whole(Vec<u8>),
    Rows(Arc<Vec<u8>>, Range<usize>),
}

/// Rows `rows` of image `image` of level `level`.
struct Unit {
    level: usize,
    image: usize,
    width: u32,
    rows: Range<u32>,
    pixels: Pixels,
}

impl Unit {
    fn pixel_count(&self) -> usize {
        self.width as usize * self.rows.len()
    }
}

/// Encodes RGBA8 levels (`levels[level][image]`, level 0 `w x h`) to UASTC in parallel tasks:
/// the slices of each level in image order, and whether any has alpha below 255. The blocks
/// are those of encoding every level whole, in any order and on any number of threads.
pub(crate) fn encode_levels(
    levels: Vec<Vec<Vec<u8>>>,
    w: u32,
    h: u32,
    options: &UastcOptions,
) -> Result<(Vec<Vec<UastcSlice>>, bool), String> {
    let shape: Vec<usize> = levels.iter().map(Vec::len).collect();
    let groups = plan_tasks(levels, w, h, options.rdo.is_none());
    let parent = timings::current();
    let encoded: Vec<Result<GroupBlocks, String>> = timings::fork(|| {
        groups
            .into_par_iter()
            .map(|group| {
                let label = task_label(&group, shape.first().copied().unwrap_or(1) > 1);
                timings::slice(parent.as_ref(), &label, || encode_group(group, options))
            })
            .collect()
    });
    // Units are in (level, image, rows) order, groups too: append each in turn.
    let mut out: Vec<Vec<UastcSlice>> = shape.iter().map(|n| Vec::with_capacity(*n)).collect();
    let mut has_alpha = false;
    for (slices, alpha) in encoded.into_iter().collect::<Result<Vec<_>, _>>()? {
        has_alpha |= alpha;
        for (level, slice) in slices {
            let images = &mut out[level];
            match (images.last_mut(), slice.1) {
                (Some(last), true) => {
                    last.blocks_y += slice.0.blocks_y;
                    last.data.extend_from_slice(&slice.0.data);
                }
                _ => images.push(slice.0),
            }
        }
    }
    Ok((out, has_alpha))
}

/// The units of every level, grouped into tasks: a level over [`TASK_PIXELS`] is cut into
/// row slices (without RDO), each its own task; the smaller units are put together in order
/// until a group reaches [`TASK_PIXELS`].
fn plan_tasks(levels: Vec<Vec<Vec<u8>>>, w: u32, h: u32, may_cut: bool) -> Vec<Vec<Unit>> {
    let mut groups: Vec<Vec<Unit>> = Vec::new();
    let mut small: Vec<Unit> = Vec::new();
    for (level, images) in levels.into_iter().enumerate() {
        let (lw, lh) = (mip_size(w, level as u32), mip_size(h, level as u32));
        let rows_per_task = (TASK_PIXELS / lw as usize).max(4) as u32 / 4 * 4;
        for (image, pixels) in images.into_iter().enumerate() {
            if !may_cut || lh <= rows_per_task {
                small.push(Unit {
                    level,
                    image,
                    width: lw,
                    rows: 0..lh,
                    pixels: Pixels::Whole(pixels),
                });
                if small.iter().map(Unit::pixel_count).sum::<usize>() >= TASK_PIXELS {
                    groups.push(std::mem::take(&mut small));
                }
                continue;
            }
            let shared = Arc::new(pixels);
            let row_bytes = lw as usize * 4;
            for start in (0..lh).step_by(rows_per_task as usize) {
                let rows = start..(start + rows_per_task).min(lh);
                let bytes = rows.start as usize * row_bytes..rows.end as usize * row_bytes;
                groups.push(vec![Unit {
                    level,
                    image,
                    width: lw,
                    rows,
                    pixels: Pixels::Rows(shared.clone(), bytes),
                }]);
            }
        }
    }
    if !small.is_empty() {
        groups.push(small);
    }
    groups
}

/// A task's name in the timings: `level0/rows 0-127`, `level3`, `levels 2-11` (with the
/// image, `image1/`, when a level has several).
fn task_label(group: &[Unit], several_images: bool) -> String {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return "empty".to_owned();
    };
    let image = |unit: &Unit| match several_images {
        true => format!("image{}/", unit.image),
        false => String::new(),
    };
    match group.len() {
        1 if first.rows.start == 0 && first.pixels_whole() => {
            format!("{}level{}", image(first), first.level)
        }
        1 => format!(
            "{}level{}/rows {}-{}",
            image(first),
            first.level,
            first.rows.start,
            first.rows.end - 1
        ),
        _ if first.level == last.level => format!("level{} images", first.level),
        _ => format!("levels {}-{}", first.level, last.level),
    }
}

impl Unit {
    fn pixels_whole(&self) -> bool {
        matches!(self.pixels, Pixels::Whole(_))
    }
}

/// A group's blocks: each unit's with its level and whether it continues the previous
/// unit's image, and whether any unit has alpha.
type GroupBlocks = (Vec<(usize, (UastcSlice, bool))>, bool);

/// Encodes a group's units in one basisu call: each unit's blocks with its level and whether
/// it continues the previous unit's image (a row slice after the first), and whether any
/// has alpha.
fn encode_group(group: Vec<Unit>, options: &UastcOptions) -> Result<GroupBlocks, String> {
    let placement: Vec<(usize, bool)> = group.iter().map(|u| (u.level, u.rows.start > 0)).collect();
    let (slices, alpha) = match group.len() {
        // A row slice borrows its level's shared buffer.
        1 if !group[0].pixels_whole() => {
            let unit = &group[0];
            let Pixels::Rows(buffer, bytes) = &unit.pixels else {
                unreachable!("checked just above")
            };
            let height = unit.rows.len() as u32;
            uastc::encode(&[(unit.width, height, &buffer[bytes.clone()])], options)?
        }
        _ => {
            let owned = group
                .into_iter()
                .map(|unit| {
                    let height = unit.rows.len() as u32;
                    match unit.pixels {
                        Pixels::Whole(pixels) => (unit.width, height, pixels),
                        Pixels::Rows(buffer, bytes) => (unit.width, height, buffer[bytes].to_vec()),
                    }
                })
                .collect();
            uastc::encode_owned(owned, options)?
        }
    };
    let placed = placement
        .into_iter()
        .zip(slices)
        .map(|((level, continues), slice)| (level, (slice, continues)))
        .collect();
    Ok((placed, alpha))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Levels of an RGBA8 image `w x h` (alpha below 255 in one corner only) and its mips.
    fn levels(w: u32, h: u32) -> Vec<Vec<Vec<u8>>> {
        let count = crate::bake::texture::pixels::full_mip_count(w, h);
        (0..count)
            .map(|level| {
                let (lw, lh) = (mip_size(w, level), mip_size(h, level));
                let pixels = (0..lw * lh)
                    .flat_map(|i| {
                        let (x, y) = (i % lw, i / lw);
                        let alpha = if x < 8 && y < 8 { 100 } else { 255 };
                        [(x * 7 + y) as u8, (x ^ y) as u8, (y * 3) as u8, alpha]
                    })
                    .collect();
                vec![pixels]
            })
            .collect()
    }

    /// Every level encoded whole, one basisu call each (the unsplit blocks).
    fn whole(levels: &[Vec<Vec<u8>>], w: u32, h: u32, options: &UastcOptions) -> Vec<UastcSlice> {
        levels
            .iter()
            .enumerate()
            .flat_map(|(level, images)| {
                let (lw, lh) = (mip_size(w, level as u32), mip_size(h, level as u32));
                uastc::encode(&[(lw, lh, &images[0])], options).unwrap().0
            })
            .collect()
    }

    #[test]
    fn row_slices_encode_to_the_blocks_of_the_whole_level() {
        // 1030 wide: 252 rows a task, not a multiple of a task, and an edge column of blocks.
        let (w, h) = (1030, 601);
        for rdo in [None, Some(1.0)] {
            let options = UastcOptions {
                level: uastc::LEVEL_FASTEST,
                rdo,
                perceptual: true,
                normal_map: false,
            };
            let levels = levels(w, h);
            let expected = whole(&levels, w, h, &options);
            let groups = plan_tasks(levels.clone(), w, h, rdo.is_none());
            let cut = groups.iter().filter(|g| g[0].rows.start > 0).count();
            assert_eq!(cut > 0, rdo.is_none(), "level 0 is cut only without RDO");
            let (split, alpha) = encode_levels(levels, w, h, &options).unwrap();
            assert!(alpha);
            let split: Vec<UastcSlice> = split.into_iter().flatten().collect();
            assert_eq!(split, expected, "rdo {rdo:?}");
        }
    }
}

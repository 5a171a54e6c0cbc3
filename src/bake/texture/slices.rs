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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
                let label = task_label(&group, shape.iter().max().copied().unwrap_or(1) > 1);
                timings::slice(parent.as_ref(), &label, || encode_group(group, options))
            })
            .collect()
    });
    join_groups(&shape, encoded)
}

/// The groups' blocks (in plan order) joined into `[level][image]` slices, `shape[level]`
/// images a level, and whether any has alpha.
fn join_groups(
    shape: &[usize],
    encoded: Vec<Result<GroupBlocks, String>>,
) -> Result<(Vec<Vec<UastcSlice>>, bool), String> {
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

/// Rows of a `width`-pixel level a row slice holds: [`TASK_PIXELS`] at most, a multiple of 4.
fn rows_per_task(width: u32) -> u32 {
    (TASK_PIXELS / width as usize).max(4) as u32 / 4 * 4
}

/// The levels [`encode_levels`] would cut into row slices, encoded while the levels are
/// being made so that none is ever held whole: each slice (the same rows, encoded alone, so
/// the same blocks) handed over as soon as its rows exist and freed once encoded.
///
/// A slice runs as a task on the worker pool; once `limit` are waiting or running, the
/// thread making the rows encodes the next one itself, which holds the memory in flight to
/// about `limit` slices (a few MB each) whatever the image size. The smaller levels are
/// handed over as tasks as soon as they are made ([`RowStream::send_rest`]), not after the
/// last slice: on many cores a texture's last task would otherwise start at its end.
pub(crate) struct RowStream {
    options: UastcOptions,
    /// Level 0's width and height.
    size: (u32, u32),
    /// Width and rows per slice of each streamed level: levels `0..levels.len()`.
    levels: Vec<(u32, u32)>,
    several_images: bool,
    parent: Option<timings::Span>,
    limit: usize,
    in_flight: AtomicUsize,
    /// `((level, image, first row), blocks and alpha)`, in the order they finished.
    done: Mutex<Vec<StreamedSlice>>,
    /// The levels after the streamed ones: how many images each has, and each task group's
    /// blocks by its index in the plan.
    rest: Mutex<(Vec<usize>, Vec<NumberedGroup>)>,
}

/// A task group's index in its plan, and its blocks.
type NumberedGroup = (usize, Result<GroupBlocks, String>);

type StreamedSlice = ((usize, usize, u32), Result<(UastcSlice, bool), String>);

impl RowStream {
    /// The stream for `level_count` levels from `w x h`, or `None` where [`encode_levels`]
    /// would cut none (RDO on, or level 0 is one task).
    pub(crate) fn plan(
        w: u32,
        h: u32,
        level_count: u32,
        images: usize,
        options: &UastcOptions,
    ) -> Option<Self> {
        let levels: Vec<(u32, u32)> = (0..level_count)
            .map(|l| {
                (
                    mip_size(w, l),
                    rows_per_task(mip_size(w, l)),
                    mip_size(h, l),
                )
            })
            .take_while(|(_, rows, lh)| lh > rows)
            .map(|(lw, rows, _)| (lw, rows))
            .collect();
        (options.rdo.is_none() && !levels.is_empty()).then(|| Self {
            options: *options,
            size: (w, h),
            levels,
            several_images: images > 1,
            parent: timings::current(),
            limit: rayon::current_num_threads().max(2),
            in_flight: AtomicUsize::new(0),
            done: Mutex::new(Vec::new()),
            rest: Mutex::new((Vec::new(), Vec::new())),
        })
    }

    /// How many levels, from level 0, are streamed.
    pub(crate) fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Bytes of one full slice of `level` (RGBA8).
    pub(crate) fn slice_bytes(&self, level: usize) -> usize {
        let (width, rows) = self.levels[level];
        width as usize * rows as usize * 4
    }

    /// Sends the full slices at the front of `pixels` (level `level`'s rows of `image` from
    /// row `*sent_rows` on; all that is left with `last`), advancing `*sent_rows`.
    pub(crate) fn send_ready<'s>(
        &'s self,
        scope: &rayon::Scope<'s>,
        (level, image): (usize, usize),
        pixels: &mut Vec<u8>,
        sent_rows: &mut u32,
        last: bool,
    ) {
        let full = self.slice_bytes(level);
        let row_bytes = self.levels[level].0 as usize * 4;
        while pixels.len() >= full || (last && !pixels.is_empty()) {
            let rest = pixels.split_off(full.min(pixels.len()));
            let slice = std::mem::replace(pixels, rest);
            let rows = (slice.len() / row_bytes) as u32;
            let key = (level, image, *sent_rows);
            if self.in_flight.fetch_add(1, Ordering::AcqRel) >= self.limit {
                self.encode(key, slice);
            } else {
                scope.spawn(move |_| self.encode(key, slice));
            }
            *sent_rows += rows;
        }
    }

    fn encode(&self, key: (usize, usize, u32), pixels: Vec<u8>) {
        let (level, image, first_row) = key;
        let width = self.levels[level].0;
        let rows = (pixels.len() / (width as usize * 4)) as u32;
        let label = format!(
            "{}level{level}/rows {}-{}",
            match self.several_images {
                true => format!("image{image}/"),
                false => String::new(),
            },
            first_row,
            first_row + rows - 1
        );
        let encoded = timings::slice(self.parent.as_ref(), &label, || {
            uastc::encode_owned(vec![(width, rows, pixels)], &self.options)
        })
        .and_then(|(mut slices, alpha)| match slices.pop() {
            Some(slice) if slices.is_empty() => Ok((slice, alpha)),
            _ => Err("internal: basisu returned other than one slice".to_owned()),
        });
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        if let Ok(mut done) = self.done.lock() {
            done.push((key, encoded));
        }
    }

    /// Hands over the levels after the streamed ones (`levels[level][image]`, every level
    /// from 0 on, the streamed ones empty), planned as [`encode_levels`] plans them, each
    /// task group a task in `scope`.
    pub(crate) fn send_rest<'s>(&'s self, scope: &rayon::Scope<'s>, levels: Vec<Vec<Vec<u8>>>) {
        let shape: Vec<usize> = levels.iter().map(Vec::len).collect();
        let several_images = shape.iter().max().copied().unwrap_or(1) > 1;
        if let Ok(mut rest) = self.rest.lock() {
            rest.0 = shape;
        }
        let (w, h) = self.size;
        for (index, group) in plan_tasks(levels, w, h, true).into_iter().enumerate() {
            scope.spawn(move |_| {
                let label = task_label(&group, several_images);
                let encoded = timings::slice(self.parent.as_ref(), &label, || {
                    encode_group(group, &self.options)
                });
                if let Ok(mut rest) = self.rest.lock() {
                    rest.1.push((index, encoded));
                }
            });
        }
    }

    /// Every level's blocks (`[level][image]`, `images` images a streamed level), and whether
    /// any has alpha; call after the scope the tasks ran in has ended.
    pub(crate) fn finish(self, images: usize) -> Result<(Vec<Vec<UastcSlice>>, bool), String> {
        let panicked = "internal: a UASTC slice task panicked";
        let (shape, mut rest) = self.rest.into_inner().map_err(|_| panicked)?;
        rest.sort_by_key(|(index, _)| *index);
        let (mut out, mut has_alpha) =
            join_groups(&shape, rest.into_iter().map(|(_, g)| g).collect())?;
        let mut done = self.done.into_inner().map_err(|_| panicked)?;
        done.sort_by_key(|(key, _)| *key);
        // The streamed levels go first; without `send_rest` there is nothing after them.
        if out.len() < self.levels.len() {
            out.resize_with(self.levels.len(), Vec::new);
        }
        let mut done = done.into_iter().peekable();
        for (level, level_out) in out.iter_mut().enumerate().take(self.levels.len()) {
            let mut images_out = Vec::with_capacity(images);
            for image in 0..images {
                // One image's slices, joined into one buffer of the exact size.
                let mut parts = Vec::new();
                while let Some((_, encoded)) =
                    done.next_if(|(key, _)| key.0 == level && key.1 == image)
                {
                    let (slice, alpha) = encoded?;
                    has_alpha |= alpha;
                    parts.push(slice);
                }
                let first = parts
                    .first()
                    .ok_or("internal: a streamed level has no slices")?;
                let mut joined = UastcSlice {
                    blocks_x: first.blocks_x,
                    blocks_y: parts.iter().map(|p| p.blocks_y).sum(),
                    data: Vec::with_capacity(parts.iter().map(|p| p.data.len()).sum()),
                };
                for part in parts {
                    joined.data.extend_from_slice(&part.data);
                }
                images_out.push(joined);
            }
            *level_out = images_out;
        }
        Ok((out, has_alpha))
    }
}

/// The units of every level, grouped into tasks: a level over [`TASK_PIXELS`] is cut into
/// row slices (without RDO), each its own task; the smaller units are put together in order
/// until a group reaches [`TASK_PIXELS`].
fn plan_tasks(levels: Vec<Vec<Vec<u8>>>, w: u32, h: u32, may_cut: bool) -> Vec<Vec<Unit>> {
    let mut groups: Vec<Vec<Unit>> = Vec::new();
    let mut small: Vec<Unit> = Vec::new();
    for (level, images) in levels.into_iter().enumerate() {
        let (lw, lh) = (mip_size(w, level as u32), mip_size(h, level as u32));
        let rows_per_task = rows_per_task(lw);
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

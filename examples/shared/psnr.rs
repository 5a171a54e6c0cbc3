//! PSNR of RGBA8 images, shared by the figure examples (`#[path]`-included: examples are
//! separate crates).

/// PSNR in dB of `a` against `b` (RGBA8, same size) over `channels`.
pub fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    let (mut sum, mut n) = (0f64, 0usize);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            sum += (pa[c] as f64 - pb[c] as f64).powi(2);
            n += 1;
        }
    }
    10.0 * (255.0f64 * 255.0 / (sum / n as f64).max(1e-12)).log10()
}

//! A windowed viewer over hearth's preview renderer: open a pack (or a baked runtime tree),
//! pick a model, orbit it.
//!
//! `cargo run -p hearth-preview --release --example preview -- PACK_OR_TREE [MESH_PATH]`
//!
//! Keys: Right / Left (or N / P) next and previous mesh, R resets the view, Escape quits;
//! drag with the left button to orbit, scroll to zoom. The renderer draws offscreen
//! (`Renderer::draw`) and the frame is shown through a CPU framebuffer (`softbuffer`): simple
//! and portable, fast enough for a preview, not a game renderer. `--screenshot OUT.png` draws
//! the first frame at the window's size, saves it and exits (`tests/render.rs` runs it so
//! under Xvfb).

use hearth::render::{Prepared, RenderScene, Renderer, View};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::rc::Rc;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// Where the baked models come from.
enum Source {
    Pack(Box<hearth::PakReader>),
    Tree(PathBuf),
}

impl Source {
    fn open(path: PathBuf) -> Result<Self, String> {
        if path.is_dir() {
            Ok(Self::Tree(path))
        } else {
            hearth::PakReader::open(&path)
                .map(|pak| Self::Pack(Box::new(pak)))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
    }

    /// Every `.hmesh` path, sorted.
    fn meshes(&self) -> Result<Vec<String>, String> {
        let mut meshes: Vec<String> = match self {
            Self::Pack(pak) => pak
                .entries()
                .filter_map(|e| e.ok())
                .map(|e| e.path().into_owned())
                .filter(|p| p.ends_with(".hmesh"))
                .collect(),
            Self::Tree(root) => {
                let manifest =
                    std::fs::read(root.join("assets.hman")).map_err(|e| e.to_string())?;
                hearth::format::hman::parse(&manifest)
                    .map_err(|e| e.to_string())?
                    .iter()
                    .map(|e| e.path.to_string())
                    .filter(|p| p.ends_with(".hmesh"))
                    .collect()
            }
        };
        meshes.sort();
        Ok(meshes)
    }

    fn scene(&self, mesh: &str, bc7: bool) -> Result<RenderScene, String> {
        match self {
            Self::Pack(pak) => RenderScene::from_pack(pak, mesh, bc7),
            Self::Tree(root) => RenderScene::from_tree(root, mesh, bc7),
        }
        .map_err(|e| format!("{mesh}: {e}"))
    }
}

struct Viewer {
    renderer: Renderer,
    source: Source,
    meshes: Vec<String>,
    current: usize,
    prepared: Option<Prepared>,
    view: View,
    dragging: bool,
    cursor: Option<(f64, f64)>,
    screenshot: Option<PathBuf>,
    window: Option<Rc<Window>>,
    surface: Option<softbuffer::Surface<Rc<Window>, Rc<Window>>>,
    error: Option<String>,
}

impl Viewer {
    fn load(&mut self) {
        let mesh = &self.meshes[self.current];
        match self.source.scene(mesh, self.renderer.samples_bc()) {
            Ok(scene) => match self.renderer.prepare(&scene) {
                Ok(prepared) => self.prepared = Some(prepared),
                Err(e) => eprintln!("{mesh}: {e}"),
            },
            Err(e) => eprintln!("{e}"),
        }
        if let Some(window) = &self.window {
            window.set_title(&format!(
                "hearth preview: {mesh} ({}/{}) on {}",
                self.current + 1,
                self.meshes.len(),
                self.renderer.adapter_name()
            ));
            window.request_redraw();
        }
    }

    fn step(&mut self, by: isize) {
        let count = self.meshes.len() as isize;
        self.current = (self.current as isize + by).rem_euclid(count) as usize;
        self.view = View::default();
        self.load();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let (Some(window), Some(surface), Some(prepared)) =
            (&self.window, &mut self.surface, &self.prepared)
        else {
            return;
        };
        let size = window.inner_size();
        let (Some(width), Some(height)) =
            (NonZeroU32::new(size.width), NonZeroU32::new(size.height))
        else {
            return;
        };
        let image = match self.renderer.draw(
            prepared,
            width.get().min(hearth::render::MAX_SIDE),
            height.get().min(hearth::render::MAX_SIDE),
            &self.view,
        ) {
            Ok(image) => image,
            Err(e) => {
                self.error = Some(e.to_string());
                event_loop.exit();
                return;
            }
        };
        if let Some(path) = self.screenshot.take() {
            if let Err(e) = image.save_png(&path) {
                self.error = Some(format!("{}: {e}", path.display()));
            }
            event_loop.exit();
            return;
        }
        if let Err(e) = surface.resize(width, height) {
            self.error = Some(e.to_string());
            event_loop.exit();
            return;
        }
        let mut buffer = match surface.buffer_mut() {
            Ok(buffer) => buffer,
            Err(e) => {
                self.error = Some(e.to_string());
                event_loop.exit();
                return;
            }
        };
        // softbuffer pixels are 0RGB; the image may be smaller than a huge window.
        buffer.fill(0);
        for y in 0..image.height.min(height.get()) as usize {
            for x in 0..image.width.min(width.get()) as usize {
                let p = &image.rgba[(y * image.width as usize + x) * 4..][..4];
                buffer[y * width.get() as usize + x] =
                    (p[0] as u32) << 16 | (p[1] as u32) << 8 | p[2] as u32;
            }
        }
        if let Err(e) = buffer.present() {
            self.error = Some(e.to_string());
            event_loop.exit();
        }
    }
}

impl ApplicationHandler for Viewer {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_title("hearth preview")
            .with_inner_size(winit::dpi::LogicalSize::new(800.0, 600.0));
        let created = event_loop
            .create_window(attributes)
            .map_err(|e| e.to_string())
            .map(Rc::new)
            .and_then(|window| {
                let context =
                    softbuffer::Context::new(window.clone()).map_err(|e| e.to_string())?;
                let surface = softbuffer::Surface::new(&context, window.clone())
                    .map_err(|e| e.to_string())?;
                Ok((window, surface))
            });
        match created {
            Ok((window, surface)) => {
                self.window = Some(window);
                self.surface = Some(surface);
                self.load();
            }
            Err(e) => {
                self.error = Some(format!("cannot open a window: {e}"));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let redraw = |viewer: &Self| {
            if let Some(window) = &viewer.window {
                window.request_redraw();
            }
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::Resized(_) => redraw(self),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                match event.logical_key.as_ref() {
                    Key::Named(NamedKey::Escape) => event_loop.exit(),
                    Key::Named(NamedKey::ArrowRight) | Key::Character("n") => self.step(1),
                    Key::Named(NamedKey::ArrowLeft) | Key::Character("p") => self.step(-1),
                    Key::Character("r") => {
                        self.view = View::default();
                        redraw(self);
                    }
                    _ => {}
                }
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.dragging = state == ElementState::Pressed,
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some((x, y))) = (self.dragging, self.cursor) {
                    self.view.yaw -= ((position.x - x) * 0.01) as f32;
                    self.view.pitch =
                        (self.view.pitch + ((position.y - y) * 0.01) as f32).clamp(-1.4, 1.4);
                    redraw(self);
                }
                self.cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => (p.y / 40.0) as f32,
                };
                self.view.zoom = (self.view.zoom * 0.9f32.powf(lines)).clamp(0.05, 20.0);
                redraw(self);
            }
            _ => {}
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let mut screenshot = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--screenshot" => {
                screenshot = Some(PathBuf::from(
                    args.next().ok_or("--screenshot needs a path")?,
                ))
            }
            _ => positional.push(arg),
        }
    }
    let [target, rest @ ..] = positional.as_slice() else {
        return Err("usage: preview PACK_OR_TREE [MESH_PATH] [--screenshot OUT.png]".into());
    };
    let source = Source::open(PathBuf::from(target))?;
    let meshes = source.meshes()?;
    if meshes.is_empty() {
        return Err(format!("{target}: no .hmesh in it"));
    }
    let current = match rest.first() {
        Some(mesh) => meshes
            .iter()
            .position(|m| m == mesh)
            .ok_or_else(|| format!("{mesh} is not in {target} (it has {meshes:?})"))?,
        None => 0,
    };
    let renderer = Renderer::new().map_err(|e| e.to_string())?;
    let mut viewer = Viewer {
        renderer,
        source,
        meshes,
        current,
        prepared: None,
        view: View::default(),
        dragging: false,
        cursor: None,
        screenshot,
        window: None,
        surface: None,
        error: None,
    };
    let event_loop = EventLoop::new().map_err(|e| format!("cannot open a display: {e}"))?;
    event_loop.run_app(&mut viewer).map_err(|e| e.to_string())?;
    viewer.error.map_or(Ok(()), Err)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

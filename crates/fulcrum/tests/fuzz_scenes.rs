//! Fuzz test of scene files: every sample scene, mutated at random (a number replaced by an
//! extreme or odd value, a value replaced by one of another type, an object key or array
//! element deleted, an array element duplicated, the text truncated), is checked, loaded and
//! stepped 30 times as `fulcrum check` and `fulcrum run` would. Nothing may panic, and after
//! the steps every body's pose and velocity and every character's position and velocity must
//! be finite, and a body the world took out of the simulation must have been reported in its
//! events.
//!
//! `FULCRUM_FUZZ_MUTATIONS=N` sets how many mutated scenes are tried (default 2,000, spread
//! evenly over the samples). Every case draws its random numbers from its own seed, so a
//! failure printed as `pyramid.json:123` replays alone with `FULCRUM_FUZZ_CASE=pyramid.json:123`
//! (which also prints the panic's backtrace when `RUST_BACKTRACE=1`).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use fulcrum::{BodyId, Scene, World};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// Steps each loaded scene is run for.
const STEPS: usize = 30;
/// Mutated scenes tried by default.
const DEFAULT_MUTATIONS: usize = 2000;

/// One step of a JSON path: an object key or an array index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Where a value sits in the document, from the root.
type Path = Vec<Step>;

/// The path as the scene loader's errors write it: `bodies[3].colliders[0].shape.radius`.
fn path_text(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) if text.is_empty() => text.push_str(key),
            Step::Key(key) => text = format!("{text}.{key}"),
            Step::Index(i) => text = format!("{text}[{i}]"),
        }
    }
    text
}

/// Every value below the root, in document order.
fn all_paths(value: &Value) -> Vec<Path> {
    fn visit(value: &Value, path: &mut Path, out: &mut Vec<Path>) {
        let children: Vec<(Step, &Value)> = match value {
            Value::Object(map) => map.iter().map(|(k, v)| (Step::Key(k.clone()), v)).collect(),
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (Step::Index(i), v)).collect(),
            _ => Vec::new(),
        };
        for (step, child) in children {
            path.push(step);
            out.push(path.clone());
            visit(child, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    visit(value, &mut Vec::new(), &mut out);
    out
}

fn get_mut<'a>(root: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(root, |value, step| match step {
        Step::Key(key) => &mut value[key.as_str()],
        Step::Index(i) => &mut value[*i],
    })
}

fn get<'a>(root: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(root, |value, step| match step {
        Step::Key(key) => &value[key.as_str()],
        Step::Index(i) => &value[*i],
    })
}

/// A number a user might get wrong: zero of both signs, the old value negated or scaled far
/// up or down, the ends of f32, integers beyond any count, values that overflow f32; half the
/// time one that the documented ranges may still accept (the ends of the ranges, the old value
/// scaled tenfold or a hundredfold), which the engine must then simulate.
fn odd_number(rng: &mut ChaCha8Rng, old: f64) -> Value {
    if rng.random_bool(0.5) {
        let choices =
            [1e4, -1e4, 1e6, -1e6, 1e5, 1e3, 100.0, 1e-3, 1e-6, 10.0 * old, 100.0 * old, -10.0 * old, 0.1 * old];
        return json!(choices.choose(rng).unwrap());
    }
    match rng.random_range(0..18) {
        0 => json!(0),
        1 => json!(-0.0),
        2 => json!(-old),
        3 => json!(1e38),
        4 => json!(-1e38),
        5 => json!(1e-38),
        6 => json!(u64::MAX),
        7 => json!(i64::MIN),
        8 => json!(1e300),
        9 => json!(old * 1e3),
        10 => json!(old * 1e6),
        11 => json!(old * 1e-6),
        12 => json!(old * (1.0 + 1e-6)),
        13 => json!(rng.random_range(-1e4..1e4)),
        14 => json!(f32::MAX),
        15 => json!(4_294_967_296u64),
        16 => json!(-1),
        _ => json!(1e5),
    }
}

/// A value of some other type than a number, or an odd number.
fn other_type(rng: &mut ChaCha8Rng) -> Value {
    let choices = [
        json!("NaN"),
        json!("inf"),
        json!("-Infinity"),
        json!(""),
        json!("box"),
        Value::Null,
        json!(true),
        json!([]),
        json!([1, 2]),
        json!([0.5, 0.5, 0.5]),
        json!({}),
        json!({"x": 1}),
        json!(1.5),
        json!(0),
    ];
    choices.choose(rng).unwrap().clone()
}

/// Words of the format (body and joint kinds, solver modes, axis motions, shape types): a
/// string replaced by one of them, or by another string of the scene (a body name in a joint's
/// `body_a`), or a flipped boolean, changes what a valid scene means.
const WORDS: [&str; 22] = [
    "static",
    "dynamic",
    "kinematic",
    "soft_step",
    "pgs",
    "ngs",
    "baumgarte",
    "none",
    "ball",
    "hinge",
    "prismatic",
    "line",
    "distance",
    "weld",
    "angle",
    "pulley",
    "gear",
    "six_dof",
    "locked",
    "free",
    "sphere",
    "box",
];

/// Applies one random mutation to `doc` and returns what it did: a number replaced (4 times in
/// 10: those mutations most often get past parsing), a value replaced by one of another type
/// (1 in 10), a string or boolean replaced by another (1 in 10), a key or element deleted (2 in
/// 10), an array element duplicated (2 in 10).
fn mutate(rng: &mut ChaCha8Rng, doc: &mut Value) -> String {
    let paths = all_paths(doc);
    let numbers: Vec<&Path> = paths.iter().filter(|p| get(doc, p).is_number()).collect();
    let words: Vec<&Path> = paths.iter().filter(|p| get(doc, p).is_string() || get(doc, p).is_boolean()).collect();
    let arrays: Vec<&Path> = paths.iter().filter(|p| get(doc, p).as_array().is_some_and(|a| !a.is_empty())).collect();
    match rng.random_range(0..10) {
        0..4 if !numbers.is_empty() => {
            let path = *numbers.choose(rng).unwrap();
            let slot = get_mut(doc, path);
            let new = odd_number(rng, slot.as_f64().unwrap_or(1.0));
            let what = format!("{} = {new} (was {slot})", path_text(path));
            *slot = new;
            what
        }
        4 if !paths.is_empty() => {
            let path = paths.choose(rng).unwrap();
            let new = other_type(rng);
            *get_mut(doc, path) = new.clone();
            format!("{} = {new}", path_text(path))
        }
        5 if !words.is_empty() => {
            let path = *words.choose(rng).unwrap();
            let new = other_word(rng, doc, &words, get(doc, path));
            let what = format!("{} = {new} (was {})", path_text(path), get(doc, path));
            *get_mut(doc, path) = new;
            what
        }
        6..8 if !paths.is_empty() => {
            let path = paths.choose(rng).unwrap();
            let (last, parent) = path.split_last().unwrap();
            match (get_mut(doc, parent), last) {
                (Value::Object(map), Step::Key(key)) => drop(map.shift_remove(key)),
                (Value::Array(items), Step::Index(i)) => drop(items.remove(*i)),
                _ => unreachable!("a path step matches its parent"),
            }
            format!("deleted {}", path_text(path))
        }
        _ if !arrays.is_empty() => duplicate(rng, doc, &arrays),
        _ => "nothing to mutate".to_string(),
    }
}

/// A flipped boolean, a word of the format or another string of the document.
fn other_word(rng: &mut ChaCha8Rng, doc: &Value, words: &[&Path], old: &Value) -> Value {
    match old {
        Value::Bool(flag) => Value::Bool(!flag),
        _ if rng.random_bool(0.5) => json!(WORDS.choose(rng).unwrap()),
        _ => get(doc, words.choose(rng).unwrap()).clone(),
    }
}

/// Duplicates an element of an array (arrays of objects, such as bodies and joints, half the
/// time), inserting the copy at a random place; half the time a copied object's name gets a
/// suffix so that the copy passes the unique-name check and is simulated.
fn duplicate(rng: &mut ChaCha8Rng, doc: &mut Value, arrays: &[&Path]) -> String {
    let of_objects: Vec<&Path> = arrays.iter().copied().filter(|p| get(doc, p)[0].is_object()).collect();
    let path = if !of_objects.is_empty() && rng.random_bool(0.5) { of_objects } else { arrays.to_vec() }
        .choose(rng)
        .copied()
        .unwrap();
    let items = get_mut(doc, path).as_array_mut().unwrap();
    let from = rng.random_range(0..items.len());
    let to = rng.random_range(0..=items.len());
    let mut copy = items[from].clone();
    let renamed = match copy.get_mut("name") {
        Some(Value::String(name)) if rng.random_bool(0.5) => {
            name.push_str("_copy");
            true
        }
        _ => false,
    };
    items.insert(to, copy);
    format!("{}[{from}] copied to [{to}]{}", path_text(path), if renamed { " and renamed" } else { "" })
}

/// A mutated scene's text: one or two mutations of the value, and one case in ten the text
/// cut at a random character.
fn mutated_text(rng: &mut ChaCha8Rng, original: &Value) -> (String, Vec<String>) {
    let mut doc = original.clone();
    let mut done: Vec<String> = (0..rng.random_range(1..=2)).map(|_| mutate(rng, &mut doc)).collect();
    let mut text = serde_json::to_string_pretty(&doc).unwrap();
    if rng.random_bool(0.1) {
        let cut = rng.random_range(0..=text.len());
        let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap();
        text.truncate(cut);
        done.push(format!("text truncated at byte {cut}"));
    }
    (text, done)
}

/// How far a mutated scene got.
enum Outcome {
    /// Parsing, validation or building refused it.
    Refused,
    /// It was built and stepped; `disabled` bodies were taken out (and reported).
    Simulated { disabled: usize },
}

/// Checks, builds and steps a scene as `fulcrum check` and `fulcrum run` do; an `Err` is a
/// broken promise other than a panic.
fn check_load_and_step(text: &str) -> Result<Outcome, String> {
    let Ok(scene) = Scene::from_json_str(text, "fuzz.json") else { return Ok(Outcome::Refused) };
    let Ok((mut world, _)) = scene.build() else { return Ok(Outcome::Refused) };
    let dt = world.settings().timestep;
    let mut reported = BTreeSet::new();
    for step in 0..STEPS {
        world.step(dt).map_err(|e| format!("step {step} of the scene's own timestep refused: {e}"))?;
        reported.extend(world.events().disabled_bodies.iter().map(|d| d.body));
    }
    check_bodies(&world, &reported)?;
    check_characters(&world)?;
    Scene::from_world(&world).to_json_string().map_err(|e| format!("the stepped world does not save: {e}"))?;
    Ok(Outcome::Simulated { disabled: reported.len() })
}

/// Every body's state is finite, and a body out of the simulation was reported.
fn check_bodies(world: &World, reported: &BTreeSet<BodyId>) -> Result<(), String> {
    for (id, body) in world.bodies() {
        let finite = body.position().is_finite()
            && body.rotation().is_finite()
            && body.linear_velocity().is_finite()
            && body.angular_velocity().is_finite();
        if !finite {
            return Err(format!("body \"{}\" has a non-finite pose or velocity", body.name()));
        }
        if !body.is_enabled() && !reported.contains(&id) {
            return Err(format!("body \"{}\" was taken out of the simulation without an event", body.name()));
        }
    }
    Ok(())
}

/// Every character's position and velocity are finite.
fn check_characters(world: &World) -> Result<(), String> {
    for (_, character) in world.characters() {
        if !(character.position().is_finite() && character.velocity().is_finite()) {
            return Err(format!("character \"{}\" has a non-finite position or velocity", character.name()));
        }
    }
    Ok(())
}

/// The seed of case `case` of the scene `name`: the name's FNV-1a hash plus the case number.
fn case_seed(name: &str, case: usize) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    hash.wrapping_add(case as u64)
}

/// A sample scene, parsed.
struct Sample {
    name: String,
    doc: Value,
}

fn samples() -> Vec<Sample> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            Sample { doc: serde_json::from_str(&text).unwrap(), name }
        })
        .collect()
}

/// Counts of what the cases did, and the failures.
#[derive(Default)]
struct Tally {
    refused: usize,
    simulated: usize,
    disabled: usize,
    failures: Vec<String>,
}

/// Runs case `case` of `sample`, adding its outcome to the tally.
fn run_case(sample: &Sample, case: usize, tally: &Mutex<Tally>) {
    let mut rng = ChaCha8Rng::seed_from_u64(case_seed(&sample.name, case));
    let (text, mutations) = mutated_text(&mut rng, &sample.doc);
    let result = catch_unwind(AssertUnwindSafe(|| check_load_and_step(&text)));
    let mut tally = tally.lock().unwrap();
    let failure = match result {
        Ok(Ok(Outcome::Refused)) => {
            tally.refused += 1;
            None
        }
        Ok(Ok(Outcome::Simulated { disabled })) => {
            tally.simulated += 1;
            tally.disabled += disabled;
            None
        }
        Ok(Err(broken)) => Some(broken),
        Err(_) => Some(format!("panicked: {}", LAST_PANIC.take())),
    };
    if let Some(failure) = failure {
        let file =
            std::env::temp_dir().join(format!("fulcrum-fuzz-{}-{case}.json", sample.name.trim_end_matches(".json")));
        let _ = std::fs::write(&file, &text);
        tally.failures.push(format!(
            "{}:{case} ({}): {failure}\n    mutated text written to {}",
            sample.name,
            mutations.join("; "),
            file.display()
        ));
    }
}

thread_local! {
    /// The message and place of this thread's last panic, kept by the quiet panic hook.
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Replaces the panic hook with one that keeps the message and place for the failure list
/// instead of printing them (and a backtrace) for every case. A replayed case
/// (`FULCRUM_FUZZ_CASE`) keeps the default hook, which prints the backtrace.
fn keep_panics_quiet() {
    if std::env::var_os("FULCRUM_FUZZ_CASE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        let message = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
            (Some(text), _) => text.to_string(),
            (_, Some(text)) => text.clone(),
            _ => "(no message)".to_string(),
        };
        LAST_PANIC.set(format!("{message}{place}"));
    }));
}

/// The cases to run: all of them, or the one `FULCRUM_FUZZ_CASE=SCENE:CASE` names.
fn cases(samples: &[Sample]) -> Vec<(usize, usize)> {
    if let Ok(only) = std::env::var("FULCRUM_FUZZ_CASE") {
        let (name, case) = only.rsplit_once(':').expect("FULCRUM_FUZZ_CASE is SCENE:CASE");
        let scene = samples.iter().position(|s| s.name == name).expect("FULCRUM_FUZZ_CASE names a sample");
        return vec![(scene, case.parse().expect("FULCRUM_FUZZ_CASE's case is a number"))];
    }
    let total: usize = std::env::var("FULCRUM_FUZZ_MUTATIONS")
        .map(|n| n.parse().expect("FULCRUM_FUZZ_MUTATIONS is a number"))
        .unwrap_or(DEFAULT_MUTATIONS);
    let per_scene = total.div_ceil(samples.len());
    (0..per_scene).flat_map(|case| (0..samples.len()).map(move |scene| (scene, case))).collect()
}

#[test]
fn mutated_samples_never_panic_nor_hide_a_non_finite_body() {
    let samples = samples();
    assert!(samples.len() >= 10, "expected the sample scenes in scenes/, found {}", samples.len());
    let cases = cases(&samples);
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    keep_panics_quiet();
    let start = Instant::now();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&(scene, case)) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    run_case(&samples[scene], case, &tally);
                }
            });
        }
    });
    let tally = tally.into_inner().unwrap();
    if std::env::var_os("FULCRUM_FUZZ_CASE").is_none() {
        let _ = std::panic::take_hook();
    }
    eprintln!(
        "fuzz_scenes: {} mutated scenes of {} samples in {:.1} s: {} refused, {} simulated ({} bodies \
         taken out and reported), {} failures",
        cases.len(),
        samples.len(),
        start.elapsed().as_secs_f64(),
        tally.refused,
        tally.simulated,
        tally.disabled,
        tally.failures.len()
    );
    assert!(tally.failures.is_empty(), "{} failures:\n{}", tally.failures.len(), tally.failures.join("\n"));
}

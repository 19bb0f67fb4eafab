//! Broad phase: which collider pairs may touch. (Interim brute-force version with the final
//! API; replaced by the dynamic AABB trees.)

use crate::geometry::{Aabb, Ray};

/// Handle of a broad-phase proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProxyId(pub u32);

/// Which set a proxy belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyKind {
    /// Static colliders.
    Static,
    /// Dynamic and kinematic colliders.
    Moving,
}

#[derive(Clone, Copy, Debug)]
struct Proxy {
    fat: Aabb,
    kind: ProxyKind,
    user: u32,
    alive: bool,
    moved: bool,
}

/// The broad phase.
#[derive(Default)]
pub struct BroadPhase {
    proxies: Vec<Proxy>,
    free: Vec<u32>,
}

impl BroadPhase {
    /// Fat AABB margin for moving proxies, metres.
    pub const MARGIN: f32 = 0.1;

    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a proxy.
    pub fn create_proxy(&mut self, aabb: Aabb, kind: ProxyKind, user: u32) -> ProxyId {
        let fat = if kind == ProxyKind::Moving { aabb.expanded(Self::MARGIN) } else { aabb };
        let proxy = Proxy { fat, kind, user, alive: true, moved: true };
        if let Some(i) = self.free.pop() {
            self.proxies[i as usize] = proxy;
            ProxyId(i)
        } else {
            self.proxies.push(proxy);
            ProxyId(self.proxies.len() as u32 - 1)
        }
    }

    /// Removes a proxy.
    pub fn destroy_proxy(&mut self, id: ProxyId) {
        self.proxies[id.0 as usize].alive = false;
        self.free.push(id.0);
    }

    /// New tight AABB of a moving proxy.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb) {
        let p = &mut self.proxies[id.0 as usize];
        if !p.fat.contains(&aabb) {
            p.fat = aabb.expanded(Self::MARGIN);
            p.moved = true;
        }
    }

    /// The fat AABB.
    pub fn fat_aabb(&self, id: ProxyId) -> Aabb {
        self.proxies[id.0 as usize].fat
    }

    /// The user value.
    pub fn user(&self, id: ProxyId) -> u32 {
        self.proxies[id.0 as usize].user
    }

    /// Candidate pairs since the last call.
    pub fn update_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        for (i, a) in self.proxies.iter().enumerate() {
            if !a.alive || !a.moved {
                continue;
            }
            for (j, b) in self.proxies.iter().enumerate() {
                if i == j || !b.alive || (a.kind == ProxyKind::Static && b.kind == ProxyKind::Static) {
                    continue;
                }
                if a.fat.overlaps(&b.fat) {
                    out.push((a.user.min(b.user), a.user.max(b.user)));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        for p in &mut self.proxies {
            p.moved = false;
        }
    }

    /// Do the fat AABBs overlap?
    pub fn fat_aabbs_overlap(&self, a: ProxyId, b: ProxyId) -> bool {
        self.fat_aabb(a).overlaps(&self.fat_aabb(b))
    }

    /// Users whose fat AABB overlaps `aabb`.
    pub fn query(&self, aabb: &Aabb, mut f: impl FnMut(u32) -> bool) {
        for p in &self.proxies {
            if p.alive && p.fat.overlaps(aabb) && !f(p.user) {
                return;
            }
        }
    }

    /// Users whose fat AABB the ray enters.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, mut f: impl FnMut(u32, f32) -> f32) {
        let mut max_t = max_t;
        let inv = ray.direction.recip();
        for p in &self.proxies {
            if !p.alive {
                continue;
            }
            if let Some(t) = p.fat.ray_entry(ray.origin, inv, max_t) {
                max_t = f(p.user, t);
                if max_t <= 0.0 {
                    return;
                }
            }
        }
    }
}

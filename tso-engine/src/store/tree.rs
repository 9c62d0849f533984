//! Tree compression: a state's list of chunk ids is folded pairwise into hash-consed
//! nodes up to one root. Equal subtrees are stored once across all states, so a new
//! state costs only the nodes on the paths to its changed chunks (DIVINE and LTSmin
//! store states the same way).
//!
//! Exact: a node is a pair of ids, interned without loss, and a state is identified by
//! its root and its number of chunks. The number fixes the tree's shape, so two
//! different chunk lists of the same length differ in some pair at the lowest level
//! where they differ, hence at every level above it, hence at the root.

use super::paged::Paged;
use hashbrown::HashTable;

/// Interned pairs of ids.
#[derive(Default)]
pub struct NodeTable {
    nodes: Paged<[u32; 2]>,
    table: HashTable<u32>,
}

#[inline]
pub fn hash_pair(a: u32, b: u32) -> u64 {
    let x = ((a as u64) << 32 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

impl NodeTable {
    /// The id of the pair `(a, b)` whose hash is `h`.
    pub fn intern(&mut self, h: u64, a: u32, b: u32) -> u32 {
        let nodes = &self.nodes;
        if let Some(&id) = self.table.find(h, |&i| nodes.get(i as usize) == [a, b]) {
            return id;
        }
        let id = self.nodes.push([a, b]) as u32;
        let nodes = &self.nodes;
        self.table.insert_unique(h, id, |&i| {
            let [x, y] = nodes.get(i as usize);
            hash_pair(x, y)
        });
        id
    }

    pub fn bytes(&self) -> usize {
        self.nodes.bytes() + self.table.capacity() * 5
    }

    /// The pair interned as `id`.
    pub fn get(&self, id: u32) -> [u32; 2] {
        self.nodes.get(id as usize)
    }
}

/// Interned states: a state is its tree's root and its number of chunks, packed in one
/// word (8 bytes a state plus the hash table's slot).
#[derive(Default)]
pub struct RootTable {
    keys: Paged<u64>,
    table: HashTable<u32>,
}

#[inline]
fn hash_key(key: u64) -> u64 {
    let x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 31)
}

impl RootTable {
    /// The id of the state with tree root `root` and `chunks` leaves, and whether it
    /// was new.
    pub fn intern(&mut self, root: u32, chunks: u32) -> (u32, bool) {
        let key = (chunks as u64) << 32 | root as u64;
        let h = hash_key(key);
        let keys = &self.keys;
        if let Some(&id) = self.table.find(h, |&i| keys.get(i as usize) == key) {
            return (id, false);
        }
        let id = u32::try_from(self.keys.len()).expect("fewer than 2^32 states in a shard");
        self.keys.push(key);
        let keys = &self.keys;
        self.table
            .insert_unique(h, id, |&i| hash_key(keys.get(i as usize)));
        (id, true)
    }

    /// Which shard the state (root, chunks) belongs in.
    pub fn hash(root: u32, chunks: u32) -> u64 {
        hash_key((chunks as u64) << 32 | root as u64)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// (root, number of chunks) of the state interned as `id`.
    pub fn get(&self, id: u32) -> (u32, u32) {
        let key = self.keys.get(id as usize);
        (key as u32, (key >> 32) as u32)
    }

    pub fn bytes(&self) -> usize {
        self.keys.bytes() + self.table.capacity() * 5
    }
}

/// Fold `level` (ids) pairwise from scratch (what [`Levels::fold`] is tested against) with `intern` until one id is left; an odd last id is
/// carried up unchanged. `level` is used as scratch space.
#[cfg(test)]
fn fold(level: &mut Vec<u32>, mut intern: impl FnMut(u32, u32) -> u32) -> u32 {
    while level.len() > 1 {
        let n = level.len();
        let mut w = 0;
        let mut r = 0;
        while r + 1 < n {
            level[w] = intern(level[r], level[r + 1]);
            w += 1;
            r += 2;
        }
        if r < n {
            level[w] = level[r];
            w += 1;
        }
        level.truncate(w);
    }
    level.first().copied().unwrap_or(u32::MAX)
}

/// The leaves of the tree with root `root` and `n` leaves (the inverse of the fold):
/// each level is rebuilt from the one above it with `pair`, which returns a node's
/// children.
pub fn unfold(root: u32, n: usize, out: &mut Vec<u32>, mut pair: impl FnMut(u32) -> [u32; 2]) {
    out.clear();
    if n == 0 {
        return;
    }
    let mut sizes = vec![n];
    while let Some(&s) = sizes.last().filter(|&&s| s > 1) {
        sizes.push(s.div_ceil(2));
    }
    out.push(root);
    let mut below = Vec::with_capacity(n);
    for &size in sizes.iter().rev().skip(1) {
        below.clear();
        for &node in &out[..size / 2] {
            below.extend_from_slice(&pair(node));
        }
        if size % 2 == 1 {
            below.push(out[size / 2]);
        }
        std::mem::swap(out, &mut below);
    }
}

/// The levels of a folded tree: `levels[0]` holds the leaves, each next level the ids
/// of the pairs below it, the last one the root. Kept from one insertion to the next:
/// a successor shares most subtrees with the state inserted just before it (its parent
/// or a sibling). When the new state has as many leaves, only the leaves that changed
/// are marked, and only the nodes above them are interned again: the cost follows what
/// changed, not the state's size. The last trees of a few different sizes are kept,
/// since allocations and returns change the number of leaves from one state to the next.
#[derive(Default)]
pub struct Levels {
    levels: Vec<Vec<u32>>,
    /// Earlier trees of other sizes, the most recent first.
    others: Vec<Vec<Vec<u32>>>,
    /// Positions changed at the level being folded, ascending, and those above them.
    dirty: Vec<u32>,
    above: Vec<u32>,
}

/// How many trees of other sizes `Levels` keeps besides the last one.
const KEPT_TREES: usize = 7;

impl Levels {
    /// Fold `leaves` up to a root with `intern`, reusing the previous tree's ids where
    /// both children are unchanged.
    pub fn fold(&mut self, leaves: &[u32], mut intern: impl FnMut(u32, u32) -> u32) -> u32 {
        if self.levels.first().is_none_or(|l| l.len() != leaves.len()) {
            let same = self
                .others
                .iter()
                .position(|t| t.first().is_some_and(|l| l.len() == leaves.len()));
            let tree = match same {
                Some(i) => self.others.remove(i),
                None if self.others.len() >= KEPT_TREES => self.others.pop().unwrap_or_default(),
                None => Vec::new(),
            };
            let last = std::mem::replace(&mut self.levels, tree);
            if !last.is_empty() {
                self.others.insert(0, last);
            }
            if same.is_none() {
                return self.fold_all(leaves, intern);
            }
        }
        let dirty = &mut self.dirty;
        dirty.clear();
        let first = &mut self.levels[0];
        for (i, (old, &new)) in first.iter_mut().zip(leaves).enumerate() {
            if *old != new {
                *old = new;
                dirty.push(i as u32);
            }
        }
        for depth in 0..self.levels.len() - 1 {
            if self.dirty.is_empty() {
                break;
            }
            let (lower, upper) = self.levels.split_at_mut(depth + 1);
            let (below, up) = (&lower[depth], &mut upper[0]);
            self.above.clear();
            for &i in &self.dirty {
                let p = i / 2;
                if self.above.last() == Some(&p) {
                    continue;
                }
                self.above.push(p);
                let l = 2 * p as usize;
                up[p as usize] = match below.get(l + 1) {
                    Some(&b) => intern(below[l], b),
                    None => below[l],
                };
            }
            std::mem::swap(&mut self.dirty, &mut self.above);
        }
        self.root()
    }

    /// Fold `leaves` from scratch (the tree's shape changed).
    fn fold_all(&mut self, leaves: &[u32], mut intern: impl FnMut(u32, u32) -> u32) -> u32 {
        let mut depth = 0;
        self.level(0).extend_from_slice(leaves);
        while self.levels[depth].len() > 1 {
            self.level(depth + 1);
            let (lower, upper) = self.levels.split_at_mut(depth + 1);
            let (below, up) = (&lower[depth], &mut upper[0]);
            for pair in below.chunks(2) {
                up.push(match *pair {
                    [a, b] => intern(a, b),
                    [odd] => odd,
                    _ => unreachable!("chunks of two"),
                });
            }
            depth += 1;
        }
        self.levels.truncate(depth + 1);
        self.root()
    }

    fn root(&self) -> u32 {
        self.levels
            .last()
            .and_then(|l| l.first())
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Level `depth`, emptied (created if missing).
    fn level(&mut self, depth: usize) -> &mut Vec<u32> {
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, Vec::new);
        }
        let l = &mut self.levels[depth];
        l.clear();
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_of(t: &mut NodeTable, leaves: &[u32]) -> (u32, usize) {
        let mut v = leaves.to_vec();
        (
            fold(&mut v, |a, b| t.intern(hash_pair(a, b), a, b)),
            leaves.len(),
        )
    }

    #[test]
    fn equal_lists_share_a_root_and_different_ones_do_not() {
        let mut t = NodeTable::default();
        let lists: Vec<Vec<u32>> = vec![
            vec![],
            vec![7],
            vec![1, 2],
            vec![2, 1],
            vec![1, 2, 3],
            vec![1, 2, 3, 4],
            vec![1, 2, 3, 5],
            vec![0, 1, 2, 3, 4],
            // Same numbers at another level of the tree: (0, 1) is a node there.
            vec![0, 0, 0, 1],
        ];
        let roots: Vec<(u32, usize)> = lists.iter().map(|l| root_of(&mut t, l)).collect();
        for (i, a) in roots.iter().enumerate() {
            for (j, b) in roots.iter().enumerate() {
                assert_eq!(a == b, i == j, "{:?} vs {:?}", lists[i], lists[j]);
            }
        }
        let again: Vec<(u32, usize)> = lists.iter().map(|l| root_of(&mut t, l)).collect();
        assert_eq!(roots, again);
    }

    #[test]
    fn reusing_the_previous_tree_gives_the_same_roots() {
        let mut t = NodeTable::default();
        let mut levels = Levels::default();
        let mut r = 1u64;
        let mut list: Vec<u32> = (0..13).collect();
        for _ in 0..500 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (r >> 33) as usize % list.len();
            match (r >> 60) % 4 {
                0 if list.len() > 1 => {
                    list.remove(at);
                }
                1 => list.insert(at, (r >> 40) as u32 % 50),
                _ => list[at] = (r >> 40) as u32 % 50,
            }
            let expected = root_of(&mut t, &list).0;
            let got = levels.fold(&list, |a, b| t.intern(hash_pair(a, b), a, b));
            assert_eq!(got, expected, "{list:?}");
        }
    }

    #[test]
    fn unfolding_a_root_gives_back_its_leaves() {
        let mut t = NodeTable::default();
        for n in 0..40u32 {
            let leaves: Vec<u32> = (0..n).map(|i| i * 7 % 11).collect();
            let (root, len) = root_of(&mut t, &leaves);
            let mut back = Vec::new();
            unfold(root, len, &mut back, |id| t.get(id));
            assert_eq!(back, leaves);
        }
    }

    #[test]
    fn a_change_costs_only_its_path() {
        let mut t = NodeTable::default();
        let base: Vec<u32> = (0..64).collect();
        root_of(&mut t, &base);
        let before = t.nodes.len();
        let mut changed = base.clone();
        changed[17] = 1000;
        root_of(&mut t, &changed);
        // One new node per level: log2(64) = 6.
        assert_eq!(t.nodes.len() - before, 6);
    }
}

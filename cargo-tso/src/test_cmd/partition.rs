//! `--partition count:K/N|hash:K/N`: which share of the tests one CI machine runs,
//! with nextest's semantics. The CI system's job matrix runs the N shards; nothing
//! here coordinates machines.
//!
//! - `count:K/N`: the tests sorted by name, the i-th (from 0) belongs to shard
//!   `i % N + 1`: shards differ in size by at most one test.
//! - `hash:K/N`: a test belongs to shard `h(name) % N + 1`, with `h` the first
//!   eight bytes of the name's SHA-256. A test's shard depends on its name only, so
//!   adding or removing tests never moves other tests between machines.

use std::fmt;

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Count,
    Hash,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub strategy: Strategy,
    /// 1-based shard this machine runs.
    pub shard: u64,
    pub total: u64,
}

impl Partition {
    /// Parses `count:K/N` or `hash:K/N` (1 <= K <= N).
    pub fn parse(text: &str) -> Result<Partition, String> {
        let usage = || {
            format!("`{text}` is not a partition: expected count:K/N or hash:K/N with 1 <= K <= N")
        };
        let (kind, share) = text.split_once(':').ok_or_else(usage)?;
        let strategy = match kind {
            "count" => Strategy::Count,
            "hash" => Strategy::Hash,
            _ => return Err(usage()),
        };
        let (shard, total) = share.split_once('/').ok_or_else(usage)?;
        let shard: u64 = shard.trim().parse().map_err(|_| usage())?;
        let total: u64 = total.trim().parse().map_err(|_| usage())?;
        if shard == 0 || total == 0 || shard > total {
            return Err(usage());
        }
        Ok(Partition {
            strategy,
            shard,
            total,
        })
    }

    /// For each name, whether this shard runs it.
    pub fn members(&self, names: &[&str]) -> Vec<bool> {
        match self.strategy {
            Strategy::Hash => names
                .iter()
                .map(|name| name_hash(name) % self.total + 1 == self.shard)
                .collect(),
            Strategy::Count => {
                let mut order: Vec<usize> = (0..names.len()).collect();
                order.sort_by(|&a, &b| names[a].cmp(names[b]).then(a.cmp(&b)));
                let mut member = vec![false; names.len()];
                for (rank, &index) in order.iter().enumerate() {
                    member[index] = rank as u64 % self.total + 1 == self.shard;
                }
                member
            }
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.strategy {
            Strategy::Count => "count",
            Strategy::Hash => "hash",
        };
        write!(f, "{kind}:{}/{}", self.shard, self.total)
    }
}

fn name_hash(name: &str) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("pkg::file::test_{i:02}")).collect()
    }

    fn shard_of(partitions: u64, strategy: Strategy, all: &[String]) -> Vec<u64> {
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let mut shard = vec![0; all.len()];
        for k in 1..=partitions {
            let p = Partition {
                strategy,
                shard: k,
                total: partitions,
            };
            for (i, member) in p.members(&refs).into_iter().enumerate() {
                if member {
                    assert_eq!(shard[i], 0, "test {i} in two shards");
                    shard[i] = k;
                }
            }
        }
        shard
    }

    #[test]
    fn every_test_is_in_exactly_one_shard() {
        let all = names(23);
        for strategy in [Strategy::Count, Strategy::Hash] {
            let shard = shard_of(4, strategy, &all);
            assert!(shard.iter().all(|&s| (1..=4).contains(&s)), "{shard:?}");
        }
    }

    #[test]
    fn count_deals_sorted_names_round_robin() {
        let all = vec![
            "c".to_owned(),
            "a".to_owned(),
            "b".to_owned(),
            "d".to_owned(),
        ];
        // Sorted: a b c d -> shards 1 2 1 2.
        assert_eq!(shard_of(2, Strategy::Count, &all), vec![1, 1, 2, 2]);
    }

    #[test]
    fn hash_shards_do_not_move_when_tests_are_added() {
        let before = names(20);
        let mut after = before.clone();
        after.extend(["pkg::new::a".to_owned(), "pkg::new::b".to_owned()]);
        let old = shard_of(3, Strategy::Hash, &before);
        let new = shard_of(3, Strategy::Hash, &after);
        assert_eq!(old[..], new[..before.len()]);
    }

    #[test]
    fn parse_accepts_only_k_of_n() {
        assert_eq!(
            Partition::parse("hash:2/4"),
            Ok(Partition {
                strategy: Strategy::Hash,
                shard: 2,
                total: 4
            })
        );
        assert_eq!(
            Partition::parse("count:1/1").map(|p| p.to_string()),
            Ok("count:1/1".to_owned())
        );
        for bad in [
            "count:0/2",
            "count:3/2",
            "hash:1/0",
            "slice:1/2",
            "count:1",
            "1/2",
            "count:a/2",
        ] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
    }
}

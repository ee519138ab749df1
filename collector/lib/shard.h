/*
 * shard.h - which of count collectors owns a target: a stable hash of its
 * shard key (FNV-1a, 64 bits) put into a bucket by Lamping and Veach's
 * jump consistent hash.  Pure functions: the same key and count give the
 * same shard on every host and every run.  Adding or removing a target
 * moves no other; going from count to count + 1 collectors moves only the
 * keys the new collector takes (about 1/(count + 1) of them), none between
 * the old ones.
 */
#ifndef WP_SHARD_H
#define WP_SHARD_H

#include <stdint.h>

/* FNV-1a 64 of the NUL-terminated s. */
/* The most shards an inventory is split into (collector.shard.count). */
#define SHARD_COUNT_MAX	4096

uint64_t	 shard_fnv1a(const char *s);
/* Jump consistent hash of key into 0..count-1 (count >= 1). */
uint32_t	 shard_jump(uint64_t key, uint32_t count);
/* The shard (0..count-1) owning key; 0 when count is 0 or 1. */
uint32_t	 shard_of(const char *key, uint32_t count);

#endif

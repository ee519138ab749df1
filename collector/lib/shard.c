/*
 * shard.c - FNV-1a and jump consistent hashing (shard.h).
 * Jump hash: J. Lamping, E. Veach, "A Fast, Minimal Memory, Consistent
 * Hash Algorithm" (2014), with the paper's arithmetic (IEEE doubles), so
 * that other implementations of it agree.
 */
#include "shard.h"

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

uint64_t
shard_fnv1a(const char *s)
{
	uint64_t h = FNV_OFFSET;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= FNV_PRIME;
	}
	return h;
}

uint32_t
shard_jump(uint64_t key, uint32_t count)
{
	int64_t b = -1, j = 0;

	while (j < (int64_t)count) {
		b = j;
		key = key * 2862933555777941757ULL + 1;
		j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) /
		    (double)((key >> 33) + 1)));
	}
	return (uint32_t)b;
}

uint32_t
shard_of(const char *key, uint32_t count)
{
	return count <= 1 ? 0 : shard_jump(shard_fnv1a(key), count);
}

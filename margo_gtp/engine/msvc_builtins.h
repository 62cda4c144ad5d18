/* The GCC/Clang bit builtins the C core uses (__builtin_ctzll, __builtin_clzll,
 * __builtin_popcountll), for Microsoft's compiler, which has none of them.
 *
 * setup.py force-includes this header (/FI) when it builds with MSVC, so the C sources keep
 * the builtins' names and GCC and Clang never see it. Under MSVC on x64 and ARM64 the scans
 * are the _BitScanForward64/_BitScanReverse64 intrinsics; the population count is the
 * portable bit-slicing count everywhere (MSVC's __popcnt64 needs the POPCNT instruction and
 * is x64-only). Like the builtins, ctz and clz are undefined for 0; the C core never asks.
 * tests/test_packaging.py compiles the portable versions with GCC and compares them with
 * the builtins.
 */
#ifndef MARGO_MSVC_BUILTINS_H
#define MARGO_MSVC_BUILTINS_H

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#if defined(_M_X64) || defined(_M_ARM64)
#define MARGO_BITSCAN64 1
#endif
#define MARGO_RENAME_BUILTINS 1
#endif

/* Index of the lowest set bit of x (x != 0). */
static inline int margo_ctzll(unsigned long long x) {
#ifdef MARGO_BITSCAN64
    unsigned long index;
    _BitScanForward64(&index, x);
    return (int)index;
#else
    int n = 0;
    if ((x & 0xFFFFFFFFull) == 0) { n += 32; x >>= 32; }
    if ((x & 0xFFFFull) == 0) { n += 16; x >>= 16; }
    if ((x & 0xFFull) == 0) { n += 8; x >>= 8; }
    if ((x & 0xFull) == 0) { n += 4; x >>= 4; }
    if ((x & 0x3ull) == 0) { n += 2; x >>= 2; }
    if ((x & 0x1ull) == 0) { n += 1; }
    return n;
#endif
}

/* Number of zero bits above the highest set bit of x (x != 0). */
static inline int margo_clzll(unsigned long long x) {
#ifdef MARGO_BITSCAN64
    unsigned long index;
    _BitScanReverse64(&index, x);
    return 63 - (int)index;
#else
    int n = 0;
    if ((x >> 32) == 0) { n += 32; x <<= 32; }
    if ((x >> 48) == 0) { n += 16; x <<= 16; }
    if ((x >> 56) == 0) { n += 8; x <<= 8; }
    if ((x >> 60) == 0) { n += 4; x <<= 4; }
    if ((x >> 62) == 0) { n += 2; x <<= 2; }
    if ((x >> 63) == 0) { n += 1; }
    return n;
#endif
}

/* Number of set bits of x. */
static inline int margo_popcountll(unsigned long long x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

#ifdef MARGO_RENAME_BUILTINS
#define __builtin_ctzll margo_ctzll
#define __builtin_clzll margo_clzll
#define __builtin_popcountll margo_popcountll
#endif

#endif /* MARGO_MSVC_BUILTINS_H */

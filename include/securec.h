/* securec.h: the bounds-checked string and memory functions CANN code calls
 * (memcpy_s, sprintf_s, ...), as the vendor's code base uses them, so a custom
 * operator's unchanged sources build against hcts. Written for hcts from the
 * functions' documented contracts, header-only (static inline), C and C++.
 *
 * Contract of every function here: on success EOK (0), or for the printf family
 * the number of characters written (without the NUL). On a bad argument (NULL
 * pointer, zero or oversized destination, overlap, source too long) nothing is
 * read past the bounds given; where a destination exists, a string destination
 * is left as an empty string and memory is left as it was (memset_s fills what
 * fits); the return is an errno-style code (or -1 for the printf family). */
#ifndef HCTS_SECUREC_H
#define HCTS_SECUREC_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef EOK
#define EOK 0
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET 162 /* the destination was too small; it has been cleared */
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET 150 /* a NULL source; the destination has been cleared */
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET 182 /* source and destination overlap; the destination has been cleared */
#endif
/* The largest destination these functions accept, as the vendor's library bounds it. */
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#endif

typedef int errno_t;

static inline int hcts_securec_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    const char *x = (const char *)a, *y = (const char *)b;
    return (x < y + blen) && (y < x + alen);
}

static inline errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (dest == NULL || destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
        return EINVAL;
    if (src == NULL) {
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (count != 0)
        memmove(dest, src, count);
    return EOK;
}

/* memmove_s's checks and copy, and overlapping ranges refused. (memmove underneath:
 * GCC's -Wrestrict would not see the overlap check in callers.) */
static inline errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (dest != NULL && destMax != 0 && destMax <= SECUREC_MEM_MAX_LEN && src != NULL && count <= destMax &&
        count != 0 && dest != src && hcts_securec_overlap(dest, count, src, count)) {
        memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    return memmove_s(dest, destMax, src, count);
}

static inline errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (dest == NULL || destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
        return EINVAL;
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    memset(dest, c, count);
    return EOK;
}

static inline errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    if (strDest == NULL || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
        return ERANGE;
    if (strSrc == NULL) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    size_t n = 0;
    while (n < count && n < destMax && strSrc[n] != '\0')
        ++n;
    if (n == destMax) { /* no room for the terminating NUL */
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (hcts_securec_overlap(strDest, n + 1, strSrc, n + 1) && strDest != strSrc) {
        strDest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    if (strDest != strSrc)
        memcpy(strDest, strSrc, n);
    strDest[n] = '\0';
    return EOK;
}

static inline errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
    return strncpy_s(strDest, destMax, strSrc, destMax);
}

static inline errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
    if (strDest == NULL || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
        return ERANGE;
    size_t used = 0;
    while (used < destMax && strDest[used] != '\0')
        ++used;
    if (used == destMax || strSrc == NULL) { /* an unterminated destination, or nothing to append */
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    const errno_t rc = strncpy_s(strDest + used, destMax - used, strSrc, destMax - used);
    if (rc != EOK)
        strDest[0] = '\0';
    return rc;
}

/* The printf family: the number of characters written, or -1 (the destination an
 * empty string) when they do not fit in destMax - 1 or an argument is bad. */
__attribute__((format(printf, 4, 0))) static inline int vsnprintf_s(char *strDest, size_t destMax, size_t count,
                                                                    const char *format, va_list argList)
{
    if (strDest == NULL || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
        return -1;
    if (format == NULL) {
        strDest[0] = '\0';
        return -1;
    }
    const size_t room = count < destMax ? count + 1 : destMax;
    const int n = vsnprintf(strDest, room, format, argList);
    if (n < 0) {
        strDest[0] = '\0';
        return -1;
    }
    if ((size_t)n >= room) {
        /* count < destMax asks for truncation to count characters; otherwise it is an error. */
        if (count < destMax)
            return -1;
        strDest[0] = '\0';
        return -1;
    }
    return n;
}

__attribute__((format(printf, 3, 0))) static inline int vsprintf_s(char *strDest, size_t destMax, const char *format,
                                                                   va_list argList)
{
    return vsnprintf_s(strDest, destMax, destMax, format, argList);
}

__attribute__((format(printf, 3, 4))) static inline int sprintf_s(char *strDest, size_t destMax, const char *format,
                                                                  ...)
{
    va_list args;
    va_start(args, format);
    const int n = vsprintf_s(strDest, destMax, format, args);
    va_end(args);
    return n;
}

__attribute__((format(printf, 4, 5))) static inline int snprintf_s(char *strDest, size_t destMax, size_t count,
                                                                   const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int n = vsnprintf_s(strDest, destMax, count, format, args);
    va_end(args);
    return n;
}

#ifdef __cplusplus
}
#endif

#endif /* HCTS_SECUREC_H */

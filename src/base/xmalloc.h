/* Allocation wrappers that die on exhaustion: the supervisor cannot limp on. */
#ifndef CT_XMALLOC_H
# define CT_XMALLOC_H

# include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grow *nmemb (doubling, at least to min_nmemb) and return the new array. */
void *xgrowarray(void *ptr, size_t *nmemb, size_t min_nmemb, size_t elem_size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

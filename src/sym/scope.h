/*
 * Which code samples are attributed to: binary scope (module paths) and
 * source scope (source file paths).  Patterns are fnmatch(3) globs where
 * Coz's '%' wildcard is accepted as a synonym of '*'.  A pattern matches a
 * path if it matches the whole path or its basename.  With no binary
 * pattern, the scope is the main executable only; the pattern "MAIN" names
 * it explicitly.  With no source pattern, every source file is in scope.
 */
#ifndef CT_SCOPE_H
# define CT_SCOPE_H

# include <stdbool.h>

struct scope;

struct scope *scope_new(void);
void scope_free(struct scope *);
void scope_add_binary(struct scope *, const char *pattern);
void scope_add_source(struct scope *, const char *pattern);

bool scope_binary_match(const struct scope *, const char *path, bool is_main_exe);
bool scope_source_match(const struct scope *, const char *file);

#endif

/*
 * Symbol names as their programmers wrote them: C++ (Itanium ABI) and
 * Rust's legacy mangling, through the C++ runtime's __cxa_demangle (the
 * demangler eu-stack uses), loaded when first needed.  Rust's v0 form
 * (_R...) is left as it is; so is every name where no libstdc++ is.
 */
#ifndef CT_SYMNAME_H
# define CT_SYMNAME_H

# include <stdbool.h>

/* The readable form of name (malloc'd), or NULL: not mangled, or unknown. */
char *symname_demangle(const char *name);

/*
 * Does a symbol answer to what a user wrote?  Its name itself, or its
 * demangled form: whole, or without its parameter list (and a method's
 * const) and a template instance's return type, or without template
 * arguments as well; and any of these by their last "::" parts.  So
 * "app::Queue<int>::push(int)" answers to "app::Queue<int>::push",
 * "Queue::push" and "push".  A mangled name is demangled only if it
 * holds the spec's last identifier (cheap for the many symbols of a
 * table that cannot match).
 */
bool symname_matches(const char *name, const char *spec);

/*
 * A name brief enough for a table's column (malloc'd): a C++ name
 * without parameters, template arguments, return type or anonymous
 * namespaces ("Index::add" for "(anonymous namespace)::Index<std::string,
 * Policy>::add(unsigned int, ...)"); any other name as it is.
 */
char *symname_brief(const char *name);

/*
 * Locations as users write them: FILE:LINE, DSO:FUNCTION, or a function
 * by its C++ name, whose "::" and "operator<" are not separators.  The
 * last ':' that separates (not part of "::", not inside () or <>), or
 * NULL.
 */
const char *symname_colon(const char *spec);
/* A function name a user may give: a C or mangled name, or a C++ one. */
bool symname_valid(const char *s);

#endif

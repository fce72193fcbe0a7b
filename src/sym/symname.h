/*
 * Symbol names as their programmers wrote them: C++ (Itanium ABI) and
 * Rust's legacy mangling, through the C++ runtime's __cxa_demangle (the
 * demangler eu-stack uses), loaded when first needed; where no libstdc++
 * is they are left as they are.  Rust's v0 form (_R...) by our own
 * demangler (rustv0.c), as rustc-demangle's alternate form shows it:
 * "mycrate::example" for _RNvCs15kBYyAo9fc_7mycrate7example.
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
 * "Queue::push" and "push".  A Rust v0 name: whole, without a clone's
 * ".suffix", or without generic arguments too, an inherent impl's
 * "<app::Queue>::push" as "app::Queue::push".  A mangled name is
 * demangled only if it holds the spec's last identifier (cheap for the
 * many symbols of a table that cannot match).
 */
bool symname_matches(const char *name, const char *spec);

/*
 * A name brief enough for a table's column (malloc'd): a C++ name
 * without parameters, template arguments, return type or anonymous
 * namespaces ("Index::add" for "(anonymous namespace)::Index<std::string,
 * Policy>::add(unsigned int, ...)"); a Rust one without generic arguments
 * ("app::Queue::push" for "<app::Queue<T>>::push", "app::run" for
 * "app::run::<u8>"); any other name as it is.
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

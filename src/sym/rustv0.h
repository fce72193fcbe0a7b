/*
 * Rust's v0 symbol mangling (RFC 2603, "_R..."), demangled as
 * rustc-demangle's alternate form ("{:#}") shows it: no crate
 * disambiguators, no instantiating crate.
 */
#ifndef CT_RUSTV0_H
# define CT_RUSTV0_H

# include <stdbool.h>

/*
 * The readable form of sym (malloc'd), or NULL: not a v0 symbol,
 * malformed, or beyond what is decoded here (see rustv0.c).  A ThinLTO
 * ".llvm.<hex>" ending is dropped; with suffix, any other ".suffix"
 * (a clone's, ".0.0") is kept after the name, as rustc-demangle keeps it.
 */
char *rustv0_demangle(const char *sym, bool suffix);

#endif

/*
 * Writing the causal profile of a running or finished session: at the
 * end (-o, --json), and on demand from the TUI ("save now"), which
 * writes profile.coz and profile.json in the current directory unless
 * -o or --json name other files.
 */
#ifndef CT_SAVE_H
# define CT_SAVE_H

# include <stdbool.h>

struct causal_meta;
struct session;

# define SAVE_DEFAULT_COZ	"profile.coz"
# define SAVE_DEFAULT_JSON	"profile.json"

/* The run's description, as of now (or of its end). */
void save_fill_meta(struct session *, struct causal_meta *);
/*
 * Write the profile to path (Coz's format, or JSON) as output_write does.
 * NULL path: nothing.  0 or -1 (said).
 */
int save_profile(struct session *, const char *path, bool json);
/* Where "save now" writes: -o and --json, or the defaults. */
const char *save_coz_path(const struct session *);
const char *save_json_path(const struct session *);

#endif

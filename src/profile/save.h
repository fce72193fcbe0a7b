/*
 * Writing the causal profile of a running or finished session: at the
 * end (-o, --json), and on demand from the TUI ("save now"), which
 * writes profile.coz and profile.json in the current directory unless
 * -o or --json name other files.
 *
 * No profile is lost to a new one.  A Coz-format file gets this run
 * added after the runs it holds, as Coz does; a JSON document that
 * exists is moved to FILE.old before the first write, as perf moves
 * perf.data.  Every path is checked when the session begins.
 */
#ifndef CT_SAVE_H
# define CT_SAVE_H

# include <stdbool.h>
# include <stddef.h>

struct causal_meta;
struct session;

# define SAVE_DEFAULT_COZ	"profile.coz"
# define SAVE_DEFAULT_JSON	"profile.json"

struct save_target {
	const char *path;		/* NULL: not written */
	bool json;
	bool move_old;			/* to PATH.old at the first write */
	char *runs;			/* Coz: what the file held at the start */
	size_t runs_len;
	unsigned nruns;
	bool written;			/* once, in this session */
};

/*
 * Check path (NULL: nothing to do) and take note of what it holds: a
 * Coz-format file must hold Coz runs, or it is not touched.  0, or
 * CT_EXIT_IO with the cause printed.
 */
int save_target_init(struct save_target *, const char *path, bool json);
void save_target_release(struct save_target *);

/* The run's description, as of now (or of its end). */
void save_fill_meta(struct session *, struct causal_meta *);
/*
 * Write the profile to the target as output_write does.  No path, or no
 * experiments: nothing.  0, or CT_EXIT_IO with the cause printed.
 */
int save_profile(struct session *, struct save_target *);
/* Both of the session's (-o, --json): one failing does not stop the other. */
int save_profiles(struct session *);

#endif

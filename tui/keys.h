/*
 * Keys from the terminal's bytes.  The TUI decodes its input itself,
 * rather than through curses' wgetch, because wgetch waits (ESCDELAY) to
 * tell a lone Escape from the start of a sequence, and the supervisor's
 * loop must never wait: here an incomplete sequence stays buffered, and
 * keys_next(.., timeout) called a little later turns it into keys.
 *
 * Understood: xterm/VT100 sequences (CSI and SS3: arrows, Home/End,
 * PgUp/PgDn, Insert/Delete, F1-F12, Shift-Tab), the Linux console's F1-F5,
 * and mouse reports (SGR 1006 and the older X10 form).
 */
#ifndef CT_TUI_KEYS_H
# define CT_TUI_KEYS_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>

/* Characters are their code points; these are above any. */
enum {
	K_NONE = 0,
	K_CTRL_L = 0x0c,
	K_SPECIAL = 0x200000,
	K_UP, K_DOWN, K_LEFT, K_RIGHT, K_PGUP, K_PGDN, K_HOME, K_END,
	K_ENTER, K_ESC, K_TAB, K_BTAB, K_BACKSPACE, K_DEL, K_INS,
	K_MOUSE,
	K_F0 = 0x200100,	/* K_F(n): F1 to F12 */
};
# define K_F(n) (K_F0 + (n))

enum mouse_button { M_LEFT, M_MIDDLE, M_RIGHT, M_WHEEL_UP, M_WHEEL_DOWN, M_OTHER };

struct key {
	int key;
	/* K_MOUSE: a press (releases and motion are not reported) */
	int x, y;		/* 0-based cell */
	enum mouse_button button;
};

# define KEYS_BUF 256

struct keydec {
	unsigned char buf[KEYS_BUF];
	size_t len;
};

/* Bytes from the terminal (what does not fit is dropped). */
void keys_push(struct keydec *, const void *bytes, size_t n);
/*
 * The next key, false when none is complete.  With timeout, a sequence
 * still incomplete is taken as it stands (a lone ESC is Escape).
 */
bool keys_next(struct keydec *, struct key *, bool timeout);
/* Something is buffered (for the caller's timeout). */
bool keys_pending(const struct keydec *);
/* "F5", "Enter", "q", ... for messages and tests. */
const char *keys_name(int key, char *buf, size_t size);

#endif

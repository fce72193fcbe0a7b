#include "config.h"
#include <stdio.h>
#include <string.h>
#include "keys.h"

void
keys_push(struct keydec *kd, const void *bytes, size_t n)
{
	if (n > KEYS_BUF - kd->len)
		n = KEYS_BUF - kd->len;
	memcpy(kd->buf + kd->len, bytes, n);
	kd->len += n;
}

bool
keys_pending(const struct keydec *kd)
{
	return kd->len > 0;
}

static void
consume(struct keydec *kd, size_t n)
{
	memmove(kd->buf, kd->buf + n, kd->len - n);
	kd->len -= n;
}

/* "ESC [ n ~" */
static int
tilde_key(unsigned n)
{
	switch (n) {
	case 1: case 7: return K_HOME;
	case 2: return K_INS;
	case 3: return K_DEL;
	case 4: case 8: return K_END;
	case 5: return K_PGUP;
	case 6: return K_PGDN;
	case 11: case 12: case 13: case 14: case 15: return K_F(n - 10);
	case 17: case 18: case 19: case 20: case 21: return K_F(n - 11);
	case 23: case 24: return K_F(n - 12);
	}
	return K_NONE;
}

/* The final byte of a CSI or SS3 sequence. */
static int
final_key(unsigned char c)
{
	switch (c) {
	case 'A': return K_UP;
	case 'B': return K_DOWN;
	case 'C': return K_RIGHT;
	case 'D': return K_LEFT;
	case 'H': return K_HOME;
	case 'F': return K_END;
	case 'Z': return K_BTAB;
	case 'P': return K_F(1);
	case 'Q': return K_F(2);
	case 'R': return K_F(3);
	case 'S': return K_F(4);
	case 'M': return K_ENTER;	/* SS3 M: keypad Enter */
	}
	return K_NONE;
}

static enum mouse_button
button_of(unsigned b)
{
	if (b & 64)
		return (b & 3) == 0 ? M_WHEEL_UP : (b & 3) == 1 ? M_WHEEL_DOWN : M_OTHER;
	switch (b & 3) {
	case 0: return M_LEFT;
	case 1: return M_MIDDLE;
	case 2: return M_RIGHT;
	}
	return M_OTHER;
}

/*
 * A sequence at buf[0] == ESC: its length and key (K_NONE: unknown, to
 * be skipped); 0 if incomplete.
 */
static size_t
escape(const unsigned char *b, size_t n, struct key *k)
{
	unsigned p[4] = { 0 }, np = 0;
	size_t i;
	bool lt = false;

	k->key = K_NONE;
	if (n < 2)
		return 0;
	if (b[1] == 'O') {
		if (n < 3)
			return 0;
		k->key = final_key(b[2]);
		return 3;
	}
	if (b[1] != '[') {
		/* Alt+key, or Escape typed before a key: Escape, then the key. */
		k->key = K_ESC;
		return 1;
	}
	if (n < 3)
		return 0;
	/* Linux console: ESC [ [ A..E for F1..F5. */
	if (b[2] == '[') {
		if (n < 4)
			return 0;
		if (b[3] >= 'A' && b[3] <= 'E')
			k->key = K_F(b[3] - 'A' + 1);
		return 4;
	}
	/* X10 mouse: ESC [ M b x y, each byte offset by 32. */
	if (b[2] == 'M') {
		if (n < 6)
			return 0;
		if ((b[3] - 32) != 3 && !((b[3] - 32) & 32)) {
			k->key = K_MOUSE;
			k->button = button_of(b[3] - 32u);
			k->x = b[4] - 33;
			k->y = b[5] - 33;
		}
		return 6;
	}
	i = 2;
	if (b[i] == '<') {
		lt = true;
		i++;
	}
	for (; i < n; i++) {
		unsigned char c = b[i];

		if (c >= '0' && c <= '9') {
			if (np == 0)
				np = 1;
			if (p[np - 1] < 100000)
				p[np - 1] = p[np - 1] * 10 + (c - '0');
		} else if (c == ';') {
			if (np == 0)
				np = 1;
			if (np < 4)
				np++;
		} else if (c >= 0x40 && c <= 0x7e) {
			if (lt && (c == 'M' || c == 'm')) {
				/* SGR mouse: ESC [ < b ; x ; y M (press) or m (release). */
				if (c == 'M' && np >= 3 && !(p[0] & 32)) {
					k->key = K_MOUSE;
					k->button = button_of(p[0]);
					k->x = (int) p[1] - 1;
					k->y = (int) p[2] - 1;
				}
			} else if (c == '~') {
				k->key = tilde_key(p[0]);
			} else {
				/* ESC [ 1 ; 2 P and friends: modifiers are ignored. */
				k->key = final_key(c);
				if (c == 'M')
					k->key = K_NONE;
			}
			return i + 1;
		} else if (c < 0x20 || c > 0x7e || i > 32) {
			/* Not a sequence after all: Escape, the rest as keys. */
			k->key = K_ESC;
			return 1;
		}
	}
	return 0;
}

/* A UTF-8 character: its length, 0 if incomplete; invalid bytes skip. */
static size_t
utf8(const unsigned char *b, size_t n, int *cp)
{
	unsigned c = b[0], len, v;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07;
	else {
		*cp = K_NONE;
		return 1;
	}
	if (n < len)
		return 0;
	for (unsigned i = 1; i < len; i++) {
		if ((b[i] & 0xc0) != 0x80) {
			*cp = K_NONE;
			return 1;
		}
		v = v << 6 | (b[i] & 0x3f);
	}
	*cp = (int) v;
	return len;
}

bool
keys_next(struct keydec *kd, struct key *k, bool timeout)
{
	while (kd->len) {
		const unsigned char *b = kd->buf;
		size_t used;

		memset(k, 0, sizeof(*k));
		if (b[0] == 0x1b) {
			used = escape(b, kd->len, k);
			if (!used) {
				if (!timeout)
					return false;
				/* Incomplete and old: a lone Escape, the rest as keys. */
				k->key = K_ESC;
				used = 1;
			}
		} else if (b[0] >= 0x80) {
			used = utf8(b, kd->len, &k->key);
			if (!used) {
				if (!timeout)
					return false;
				k->key = K_NONE;
				used = 1;
			}
		} else {
			used = 1;
			switch (b[0]) {
			case '\r':
			case '\n':
				k->key = K_ENTER;
				break;
			case '\t':
				k->key = K_TAB;
				break;
			case 0x7f:
			case 0x08:
				k->key = K_BACKSPACE;
				break;
			default:
				k->key = b[0];
			}
		}
		consume(kd, used);
		if (k->key != K_NONE)
			return true;
	}
	return false;
}

const char *
keys_name(int key, char *buf, size_t size)
{
	static const char *const names[] = {
		[K_UP - K_SPECIAL] = "Up", [K_DOWN - K_SPECIAL] = "Down",
		[K_LEFT - K_SPECIAL] = "Left", [K_RIGHT - K_SPECIAL] = "Right",
		[K_PGUP - K_SPECIAL] = "PgUp", [K_PGDN - K_SPECIAL] = "PgDn",
		[K_HOME - K_SPECIAL] = "Home", [K_END - K_SPECIAL] = "End",
		[K_ENTER - K_SPECIAL] = "Enter", [K_ESC - K_SPECIAL] = "Esc",
		[K_TAB - K_SPECIAL] = "Tab", [K_BTAB - K_SPECIAL] = "Shift-Tab",
		[K_BACKSPACE - K_SPECIAL] = "Backspace", [K_DEL - K_SPECIAL] = "Delete",
		[K_INS - K_SPECIAL] = "Insert", [K_MOUSE - K_SPECIAL] = "Mouse",
	};

	if (key > K_F0 && key <= K_F(12))
		snprintf(buf, size, "F%d", key - K_F0);
	else if (key > K_SPECIAL && key - K_SPECIAL < (int) (sizeof(names) / sizeof(names[0])) &&
		 names[key - K_SPECIAL])
		snprintf(buf, size, "%s", names[key - K_SPECIAL]);
	else if (key > 0 && key < 0x20)
		snprintf(buf, size, "Ctrl-%c", key + '@');
	else if (key >= 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "U+%04X", (unsigned) key);
	return buf;
}

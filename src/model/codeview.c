#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/xmalloc.h"
#include "model/codeview.h"
#include "model/model.h"
#include "ptrace/tcb.h"
#include "sym/disasm.h"
#include "sym/lines.h"
#include "sym/pchist.h"
#include "sym/symbolizer.h"

/* Source files larger than this are not shown. */
#define SRC_MAX_BYTES (8 << 20)
/* Decoding is retried this often while it has nothing to show. */
#define RETRY_NS 1000000000ULL

struct codeview {
	bool have;
	unsigned target;
	bool is_func;

	/* The source file, split into lines. */
	char *file;
	char *text;
	char **line;		/* line[i]: line i + 1 */
	size_t nlines;
	const char *src_error;
	unsigned center;

	/* The code. */
	struct disasm_insn *insn;
	bool *in_target;
	size_t ninsn;
	bool decoded;
	uint64_t decode_ns;
	const char *asm_error;
	char asm_why[128];

	struct model_src_line *src;	/* what d points to */
	struct model_insn *minsn;
};

struct codeview *
codeview_new(void)
{
	return xcalloc(1, sizeof(struct codeview));
}

static void
forget_source(struct codeview *cv)
{
	free(cv->file);
	free(cv->text);
	free(cv->line);
	cv->file = cv->text = NULL;
	cv->line = NULL;
	cv->nlines = 0;
	cv->src_error = NULL;
}

static void
forget_code(struct codeview *cv)
{
	free(cv->insn);
	free(cv->in_target);
	cv->insn = NULL;
	cv->in_target = NULL;
	cv->ninsn = 0;
	cv->decoded = false;
	cv->decode_ns = 0;
	cv->asm_error = NULL;
}

void
codeview_free(struct codeview *cv)
{
	if (!cv)
		return;
	forget_source(cv);
	forget_code(cv);
	free(cv->src);
	free(cv->minsn);
	free(cv);
}

static void
load_source(struct codeview *cv, const char *path)
{
	FILE *f;
	size_t len = 0, cap = 0;

	if (cv->file && !strcmp(cv->file, path))
		return;
	forget_source(cv);
	cv->file = xstrdup(path);
	if (!(f = fopen(path, "re"))) {
		cv->src_error = errno == ENOENT ? "the source file is not there" :
						  "the source file cannot be read";
		return;
	}
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap)
			cv->text = xgrowarray(cv->text, &cap, len + 4096 + 1, 1);
		n = fread(cv->text + len, 1, cap - len - 1, f);
		len += n;
		if (!n || len > SRC_MAX_BYTES)
			break;
	}
	fclose(f);
	if (len > SRC_MAX_BYTES) {
		cv->src_error = "the source file is too large to show";
		return;
	}
	cv->text[len] = '\0';
	for (size_t i = 0, cap_l = 0; i < len;) {
		char *nl = memchr(cv->text + i, '\n', len - i);

		if (cv->nlines == cap_l)
			cv->line = xgrowarray(cv->line, &cap_l, cv->nlines + 1, sizeof(*cv->line));
		cv->line[cv->nlines++] = cv->text + i;
		if (!nl)
			break;
		*nl = '\0';
		i = (size_t) (nl - cv->text) + 1;
	}
}

/* The line a target is centred on: itself, or a function's hottest line. */
static const struct ct_line *
center_line(struct session *s, unsigned target, bool is_func)
{
	size_t n;
	struct ct_line *const *l = lines_lines(s->lines, &n);
	const struct ct_line *best = NULL;

	if (!is_func)
		return target < n ? l[target] : NULL;
	for (size_t i = 0; i < n; i++)
		if (l[i]->func && l[i]->func->id == target &&
		    (!best || l[i]->samples > best->samples))
			best = l[i];
	return best;
}

static void
fill_source(struct codeview *cv, struct session *s, struct model_detail *d)
{
	const struct ct_line *c = center_line(s, cv->target, cv->is_func);
	unsigned first, last;
	struct ct_line *const *l;
	size_t n, k = 0;

	d->nsrc = 0;
	d->src = NULL;
	if (!c) {
		d->src_error = "no source line";
		return;
	}
	load_source(cv, c->file);
	d->center = cv->center = c->line;
	d->src_error = cv->src_error;
	if (cv->src_error)
		return;
	if (c->line > cv->nlines) {
		d->src_error = "the source file is shorter than the line (changed since the build?)";
		return;
	}
	first = c->line > CODEVIEW_RADIUS ? c->line - CODEVIEW_RADIUS : 1;
	last = c->line + CODEVIEW_RADIUS;
	if (last > cv->nlines)
		last = (unsigned) cv->nlines;
	cv->src = xrealloc(cv->src, (last - first + 1) * sizeof(*cv->src));
	for (unsigned i = first; i <= last; i++)
		cv->src[k++] = (struct model_src_line) { .line = i, .text = cv->line[i - 1] };
	/* Samples of every line of that number in that file (several functions). */
	l = lines_lines(s->lines, &n);
	for (size_t i = 0; i < n; i++)
		if (l[i]->line >= first && l[i]->line <= last && l[i]->samples &&
		    (l[i]->file == c->file || !strcmp(l[i]->file, c->file)))
			cv->src[l[i]->line - first].samples += l[i]->samples;
	d->src = cv->src;
	d->nsrc = k;
}

static bool
covered(const struct codeview *cv, uint64_t pc)
{
	for (size_t i = 0; i < cv->ninsn; i++)
		if (pc >= cv->insn[i].addr && pc < cv->insn[i].addr + cv->insn[i].size)
			return true;
	return false;
}

/* Decode the functions the target's samples are in; keep its instructions. */
static void
decode(struct codeview *cv, struct session *s, const struct pchist_entry *e, size_t ne)
{
	size_t nfuncs = 0, cap = 0;

	for (size_t i = 0; i < ne && nfuncs < CODEVIEW_MAX_FUNCS; i++) {
		struct ctproc *p = proc_lookup(e[i].tgid);
		struct disasm_insn *insn;
		unsigned char *code;
		const char *why = NULL;
		uint64_t start;
		size_t len;
		long n;

		if (covered(cv, e[i].pc))
			continue;
		if (!p || !p->sym) {
			cv->asm_error = "the process is gone";
			continue;
		}
		if (!sym_func_code(p->sym, e[i].pc, &start, &len, &code)) {
			cv->asm_error = "no code for this address in the module's file";
			continue;
		}
		n = disasm_code(code, len, start, CODEVIEW_MAX_INSNS, &insn, &why);
		free(code);
		if (n < 0) {
			snprintf(cv->asm_why, sizeof(cv->asm_why), "%s", why);
			cv->asm_error = cv->asm_why;
			return;
		}
		nfuncs++;
		for (long k = 0; k < n; k++) {
			/* sym_lookup may grow the lines table: look the target up each time. */
			const struct sym_loc *loc = sym_lookup(p->sym, insn[k].addr);
			bool in = cv->is_func ? loc->func->id == cv->target :
				  loc->line && loc->line->id == cv->target;

			if (!in && !cv->is_func)
				continue;
			if (cv->ninsn == cap) {
				size_t c2 = cap;

				cv->insn = xgrowarray(cv->insn, &cap, cv->ninsn + 1, sizeof(*cv->insn));
				cv->in_target = xgrowarray(cv->in_target, &c2, cap, sizeof(*cv->in_target));
			}
			cv->insn[cv->ninsn] = insn[k];
			cv->in_target[cv->ninsn++] = in;
		}
		free(insn);
	}
	if (cv->ninsn)
		cv->asm_error = NULL;
	else if (!cv->asm_error)
		cv->asm_error = "no instruction of this line was found";
}

static void
fill_code(struct codeview *cv, struct session *s, struct model_detail *d)
{
	struct pchist_entry *e = NULL;
	size_t ne = 0;
	uint64_t now = clock_now_ns();

	d->insns = NULL;
	d->ninsns = 0;
	if (!s->pcs) {
		d->asm_error = "no sample addresses are kept";
		return;
	}
	e = pchist_of(s->pcs, cv->is_func, cv->target, &ne);
	if (!cv->decoded && ne && now - cv->decode_ns >= RETRY_NS) {
		cv->decode_ns = now;
		decode(cv, s, e, ne);
		cv->decoded = cv->ninsn > 0;
	}
	d->asm_error = cv->ninsn ? NULL : ne ? cv->asm_error : "no sample address yet";
	cv->minsn = xrealloc(cv->minsn, (cv->ninsn + 1) * sizeof(*cv->minsn));
	for (size_t i = 0; i < cv->ninsn; i++)
		cv->minsn[i] = (struct model_insn) {
			.addr = cv->insn[i].addr,
			.text = cv->insn[i].text,
			.in_target = cv->in_target[i],
		};
	/* Each sample to the instruction holding its address (a return address - 1 is inside the call). */
	for (size_t j = 0, i = 0; j < ne; j++) {
		while (i < cv->ninsn && cv->insn[i].addr + cv->insn[i].size <= e[j].pc)
			i++;
		if (i < cv->ninsn && e[j].pc >= cv->insn[i].addr)
			cv->minsn[i].samples += e[j].count;
	}
	free(e);
	d->insns = cv->minsn;
	d->ninsns = cv->ninsn;
}

void
codeview_fill(struct codeview *cv, struct session *s, unsigned target, bool is_func,
	      struct model_detail *d)
{
	if (!cv->have || cv->target != target || cv->is_func != is_func) {
		forget_code(cv);
		cv->have = true;
		cv->target = target;
		cv->is_func = is_func;
	}
	memset(d, 0, sizeof(*d));
	d->valid = true;
	d->target = target;
	d->is_func = is_func;
	fill_source(cv, s, d);
	fill_code(cv, s, d);
}

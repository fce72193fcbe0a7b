/*
 * The pooled profile: runs, targets and points shared by the parsers,
 * reading files, telling the formats apart.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/readall.h"
#include "base/xmalloc.h"
#include "profile/profile_parse.h"
#include "sym/lines.h"

struct profile *
profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->lines = lines_new();
	p->progress = progress_table_new();
	p->stats = stats_new();
	return p;
}

void
profile_free(struct profile *p)
{
	if (!p)
		return;
	lines_free(p->lines);
	progress_table_free(p->progress);
	stats_free(p->stats);
	for (size_t i = 0; i < p->nruns; i++) {
		free(p->runs[i].file);
		free(p->runs[i].command);
	}
	free(p->runs);
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	if (p->command)
		for (char **a = p->command; *a; a++)
			free(*a);
	free(p->command);
	free(p->run_samples);
	free(p);
}

int
pp_error(struct profile_parse *pp, unsigned line, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (line)
		n = (size_t) snprintf(pp->err, pp->errsize, "%s:%u: ", pp->name, line);
	else
		n = (size_t) snprintf(pp->err, pp->errsize, "%s: ", pp->name);
	if (n < pp->errsize) {
		va_start(ap, fmt);
		vsnprintf(pp->err + n, pp->errsize - n, fmt, ap);
		va_end(ap);
	}
	/* Names quoted from the file must not reach a terminal raw. */
	for (char *c = pp->err; *c; c++)
		if ((unsigned char) *c < 0x20 || *c == 0x7f)
			*c = '?';
	return CT_EXIT_PROFILE;
}

void
pp_position(const char *data, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (data[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

const char *
profile_intern(struct profile *p, const char *s)
{
	for (size_t i = 0; i < p->nstrings; i++)
		if (!strcmp(p->strings[i], s))
			return p->strings[i];
	if (p->nstrings == p->strings_alloc)
		p->strings = xgrowarray(p->strings, &p->strings_alloc, p->nstrings + 1,
					sizeof(*p->strings));
	return p->strings[p->nstrings++] = xstrdup(s);
}

unsigned
profile_run_begin(struct profile *p, const char *file, unsigned line, const char *format)
{
	struct profile_run *r;

	profile_coz_samples_flush(p);
	if (p->nruns == p->runs_alloc)
		p->runs = xgrowarray(p->runs, &p->runs_alloc, p->nruns + 1, sizeof(*p->runs));
	r = &p->runs[p->nruns];
	memset(r, 0, sizeof(*r));
	r->file = xstrdup(file);
	r->line = line;
	r->format = format;
	return (unsigned) p->nruns++;
}

static struct ct_func *
func_by_name(struct profile *p, const char *name, const char *dso)
{
	size_t n;
	struct ct_func *const *f = lines_funcs(p->lines, &n);

	/* Few function targets: first seen wins, whatever its module. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i]->name, name) || !strcmp(lines_func_symbol(f[i]), name))
			return f[i];
	return lines_func(p->lines, dso ? dso : "", name);
}

int
profile_target(struct profile *p, const char *location, const char *func,
	       const char *dso, unsigned *id, bool *is_func)
{
	const char *colon;
	char *file, *end;
	unsigned long v;
	struct ct_line *l;

	if (!strncmp(location, "function:", 9)) {
		if (!location[9])
			return -1;
		*id = func_by_name(p, location + 9, dso)->id;
		*is_func = true;
		return 0;
	}
	colon = strrchr(location, ':');
	if (!colon || colon == location || colon[1] < '0' || colon[1] > '9')
		return -1;
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || *end || v > 0xffffffffUL)
		return -1;
	file = xstrdup(location);
	file[colon - location] = 0;
	l = lines_line(p->lines, file, (unsigned) v, NULL);
	free(file);
	if (!l->func && func)
		l->func = func_by_name(p, func, dso);
	*id = l->id;
	*is_func = false;
	return 0;
}

void
profile_target_samples(struct profile *p, unsigned id, bool is_func, uint64_t n)
{
	size_t cnt;

	if (is_func) {
		struct ct_func *const *f = lines_funcs(p->lines, &cnt);

		if (id < cnt)
			f[id]->samples += n;
	} else {
		struct ct_line *const *l = lines_lines(p->lines, &cnt);

		if (id < cnt)
			l[id]->samples += n;
	}
}

struct progress_point *
profile_point(struct profile *p, const char *name, enum progress_kind kind,
	      const char *source)
{
	size_t n;
	struct progress_point *const *v = progress_points(p->progress, &n);

	/* Matched by name and kind: a Coz run and a causaltop run of one program agree. */
	for (size_t i = 0; i < n; i++)
		if (v[i]->kind == kind && !strcmp(v[i]->name, name))
			return v[i];
	return progress_point(p->progress, name, kind, profile_intern(p, source));
}

void
profile_add_experiment(struct profile *p, const struct exp_record *r)
{
	struct exp_record c = *r;
	struct profile_run *run = &p->runs[r->run];

	if (c.pct)
		run->experiments++;
	else
		run->baselines++;
	stats_add(p->stats, &c);
}

void
profile_coz_samples(struct profile *p, unsigned line_id, uint64_t count)
{
	if (line_id >= p->run_samples_alloc) {
		size_t old = p->run_samples_alloc;

		p->run_samples = xgrowarray(p->run_samples, &p->run_samples_alloc,
					    (size_t) line_id + 1, sizeof(*p->run_samples));
		memset(p->run_samples + old, 0,
		       (p->run_samples_alloc - old) * sizeof(*p->run_samples));
	}
	/* Coz writes running totals, every 32 experiments and at exit. */
	if (count > p->run_samples[line_id])
		p->run_samples[line_id] = count;
}

void
profile_coz_samples_flush(struct profile *p)
{
	for (size_t i = 0; i < p->run_samples_alloc; i++) {
		if (!p->run_samples[i])
			continue;
		profile_target_samples(p, (unsigned) i, false, p->run_samples[i]);
		p->samples_total += p->run_samples[i];
		p->run_samples[i] = 0;
	}
}

/* ---- json-c values ---- */

int
pj_u64(struct json_object *o, uint64_t *v)
{
	if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0)
		return -1;
	errno = 0;
	*v = json_object_get_uint64(o);
	return errno ? -1 : 0;
}

int
pj_i64(struct json_object *o, int64_t *v)
{
	if (!json_object_is_type(o, json_type_int))
		return -1;
	errno = 0;
	*v = json_object_get_int64(o);
	/* A value past INT64_MAX is kept as unsigned by json-c. */
	if (errno || (*v == INT64_MAX && json_object_get_uint64(o) > INT64_MAX))
		return -1;
	return 0;
}

int
pj_double(struct json_object *o, double *v)
{
	if (!json_object_is_type(o, json_type_int) &&
	    !json_object_is_type(o, json_type_double))
		return -1;
	*v = json_object_get_double(o);
	return 0;
}

int
pj_str(struct json_object *o, const char **s)
{
	if (!json_object_is_type(o, json_type_string))
		return -1;
	*s = json_object_get_string(o);
	return strlen(*s) == (size_t) json_object_get_string_len(o) ? 0 : -1;
}

const char *
pj_show(struct json_object *o)
{
	static char buf[64];
	const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "null";
	size_t n = strlen(s);

	if (n < sizeof(buf))
		return s;
	memcpy(buf, s, sizeof(buf) - 4);
	memcpy(buf + sizeof(buf) - 4, "...", 4);
	return buf;
}

/* ---- files ---- */

/*
 * A causaltop document starts with "{" and has no "type" member; a
 * JSON-lines file has one complete record per line, each with "type".
 */
static bool
starts_coz_jsonl(const char *data, size_t len)
{
	const char *nl = memchr(data, '\n', len);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	bool coz = false;

	if (!tok)
		error_msg_and_die(CT_EXIT_INTERNAL, "out of memory");
	o = json_tokener_parse_ex(tok, data, (int) (nl ? (size_t) (nl - data) : len));
	if (o && json_object_is_type(o, json_type_object))
		coz = json_object_object_get_ex(o, "type", NULL);
	json_object_put(o);
	json_tokener_free(tok);
	return coz;
}

int
profile_read_buffer(struct profile *p, const char *name, const char *data, size_t len,
		    char *err, size_t errsize)
{
	struct profile_parse pp = { .p = p, .name = name, .err = err, .errsize = errsize };
	size_t i = 0;

	/* json-c takes int lengths. */
	if (len > 0x7fffffff)
		return pp_error(&pp, 0, "too large (%zu bytes)", len);
	while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' ||
			   data[i] == '\r'))
		i++;
	if (i == len)
		return pp_error(&pp, 0, "empty: not a causal profile");
	if (data[i] == '{' && !starts_coz_jsonl(data + i, len - i))
		return profile_parse_json(&pp, data, len);
	return profile_parse_coz(&pp, data, len);
}

int
profile_read_file(struct profile *p, const char *path, char *err, size_t errsize)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	char *data;
	size_t len;
	int rc;

	if (fd < 0) {
		snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
		return CT_EXIT_IO;
	}
	rc = read_all(fd, &data, &len);
	if (fd)
		close(fd);
	if (rc) {
		snprintf(err, errsize, "cannot read %s: %s", path, strerror(rc));
		return CT_EXIT_IO;
	}
	rc = profile_read_buffer(p, path, data, len, err, errsize);
	free(data);
	return rc;
}

void
profile_finish(struct profile *p)
{
	struct causal_meta *m = &p->meta;

	profile_coz_samples_flush(p);
	m->command = p->command;
	m->start_ns = 0;
	m->end_ns = p->duration_ns;
	m->delay_ns = p->delay_ns;
	m->delay_unknown = p->runs_delay_unknown > 0;
	m->samples_total = p->samples_total;
	m->by_function = p->nruns && p->runs_function == p->nruns;
	m->runs = (unsigned) p->nruns;
}

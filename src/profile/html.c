/*
 * `causaltop report --html`: one self-contained page.  Curves are drawn
 * here as inline SVG (the page shows them without scripts); a short
 * inline script only sorts the tables.  Nothing is loaded from anywhere:
 * the page's Content-Security-Policy forbids it.  Every name comes from
 * the profiled program and goes through escape_html().
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/escape.h"
#include "base/path.h"
#include "calc/stats.h"
#include "perf/progress.h"
#include "profile/causal_out.h"
#include "profile/html.h"
#include "profile/profile.h"

/* One curve's chart. */
enum {
	SVG_W = 260, SVG_H = 150,
	SVG_ML = 44, SVG_MR = 16, SVG_MT = 8, SVG_MB = 22,
};

#define Y_CLIP 2.0	/* past +-200%, intervals are drawn cut */

static const char page_head[] =
"<!DOCTYPE html>\n"
"<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
"style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
"<meta name=\"generator\" content=\"causaltop " PACKAGE_VERSION "\">\n";

/* Loaded first, so that an error in the later script is recorded too. */
static const char page_error_hook[] =
"<script>window.addEventListener('error',function(e){"
"document.documentElement.setAttribute('data-js-error',String(e.message));});</script>\n";

static const char page_style[] =
"<style>\n"
"body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}\n"
"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
"table{border-collapse:collapse;margin:.5em 0}\n"
"th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:middle}\n"
"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
"table.causal th{cursor:pointer;background:#f3f3f3;user-select:none}\n"
"table.causal th.asc::after{content:' \\25b2'}table.causal th.desc::after{content:' \\25bc'}\n"
".v-optimize{color:#1a7f37;font-weight:bold}.v-contention{color:#c62828;font-weight:bold}\n"
".v-none{color:#666}\n"
"svg.curve{display:block}svg.curve text{font-size:10px;fill:#555}\n"
".band{fill:#4682b4;fill-opacity:.28;stroke:none}\n"
".est{fill:none;stroke:#1f4e79;stroke-width:2}\n"
".fit{fill:none;stroke:#e07b00;stroke-width:1.5;stroke-dasharray:5 3}\n"
".axis{stroke:#999;stroke-width:1;fill:none}.zero{stroke:#bbb;stroke-dasharray:2 2}\n"
".pt{fill:#1f4e79}.pt-weak{fill:#fff;stroke:#999}\n"
".meta td:first-child{color:#555}\n"
"</style>\n";

/* Sort on a click on a header, or from the address: #sort=KEY[,asc|,desc]. */
static const char page_script[] =
"<script>\n"
"(function(){\n"
"function val(tr,key,num){var v=tr.getAttribute('data-'+key);"
"if(!num)return v||'';var x=parseFloat(v);return isNaN(x)?null:x;}\n"
"function sortTable(t,key,dir){var th=t.querySelector('th[data-key=\"'+key+'\"]');"
"if(!th)return;var num=th.getAttribute('data-type')==='num';"
"var tb=t.tBodies[0];var rows=Array.prototype.slice.call(tb.rows);"
"rows.sort(function(a,b){var x=val(a,key,num),y=val(b,key,num);"
"if(x===null&&y===null)return 0;if(x===null)return 1;if(y===null)return -1;"
"var c=num?x-y:String(x).localeCompare(String(y));return dir==='asc'?c:-c;});"
"rows.forEach(function(r){tb.appendChild(r);});"
"t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});"
"th.classList.add(dir);}\n"
"document.querySelectorAll('table.causal').forEach(function(t){"
"t.querySelectorAll('th[data-key]').forEach(function(th){"
"th.addEventListener('click',function(){var d=th.classList.contains('asc')?'desc':"
"th.classList.contains('desc')?'asc':th.getAttribute('data-first');"
"sortTable(t,th.getAttribute('data-key'),d);});});});\n"
"var m=/^#sort=([a-z]+)(?:,(asc|desc))?$/.exec(location.hash);\n"
"if(m)document.querySelectorAll('table.causal').forEach(function(t){"
"sortTable(t,m[1],m[2]||'desc');});\n"
"document.documentElement.setAttribute('data-ready','1');\n"
"})();\n"
"</script>\n";

struct chart {
	double ymin, ymax;
};

static double
clip(double v)
{
	return v > Y_CLIP ? Y_CLIP : v < -Y_CLIP ? -Y_CLIP : v;
}

static double
sx(double pct)
{
	return SVG_ML + (SVG_W - SVG_ML - SVG_MR) * pct / 100.0;
}

static double
sy(const struct chart *c, double v)
{
	return SVG_MT + (SVG_H - SVG_MT - SVG_MB) * (c->ymax - clip(v)) / (c->ymax - c->ymin);
}

static void
grow(struct chart *c, double v)
{
	if (!isfinite(v))
		return;
	v = clip(v);
	if (v < c->ymin)
		c->ymin = v;
	if (v > c->ymax)
		c->ymax = v;
}

/* The y range: the estimates, their intervals, the fit, and 0. */
static void
chart_range(const struct stats_curve *cv, struct chart *c)
{
	double pad;

	c->ymin = 0;
	c->ymax = 0;
	for (size_t k = 0; k < cv->nlevels; k++) {
		const struct stats_level *lv = &cv->levels[k];

		grow(c, lv->est);
		if (lv->valid) {
			grow(c, lv->lo);
			grow(c, lv->hi);
		}
	}
	grow(c, cv->impact);
	if (c->ymax - c->ymin < 0.1) {
		c->ymax += 0.05;
		c->ymin -= 0.05;
	}
	pad = (c->ymax - c->ymin) * 0.05;
	c->ymax += pad;
	c->ymin -= pad;
}

static void
svg_curve(FILE *f, const struct stats_curve *cv)
{
	struct chart c;
	size_t nvalid = 0;

	chart_range(cv, &c);
	fprintf(f, "<svg class=\"curve\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", SVG_W, SVG_H, SVG_W, SVG_H);
	fputs("<title>program speedup (y) against line speedup (x), 95% band</title>", f);
	/* Frame, the zero line, ticks. */
	fprintf(f, "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
		SVG_ML, SVG_MT, SVG_W - SVG_ML - SVG_MR, SVG_H - SVG_MT - SVG_MB);
	fprintf(f, "<line class=\"zero\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>",
		SVG_ML, SVG_W - SVG_MR, sy(&c, 0), sy(&c, 0));
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%+.0f%%</text>",
		SVG_ML - 3, sy(&c, c.ymax) + 8, 100 * c.ymax);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">0%%</text>",
		SVG_ML - 3, sy(&c, 0) + 3);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%+.0f%%</text>",
		SVG_ML - 3, sy(&c, c.ymin), 100 * c.ymin);
	for (unsigned x = 0; x <= 100; x += 25)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u%%</text>",
			sx(x), SVG_H - 8, x);

	/* The band: from (0, 0), along the upper bounds, back along the lower. */
	for (size_t k = 0; k < cv->nlevels; k++)
		nvalid += cv->levels[k].valid;
	if (nvalid) {
		fprintf(f, "<polygon class=\"band\" points=\"%.1f,%.1f", sx(0), sy(&c, 0));
		for (size_t k = 0; k < cv->nlevels; k++)
			if (cv->levels[k].valid)
				fprintf(f, " %.1f,%.1f", sx(cv->levels[k].pct),
					sy(&c, cv->levels[k].hi));
		for (size_t k = cv->nlevels; k-- > 0;)
			if (cv->levels[k].valid)
				fprintf(f, " %.1f,%.1f", sx(cv->levels[k].pct),
					sy(&c, cv->levels[k].lo));
		fputs("\"/>", f);
		fprintf(f, "<polyline class=\"est\" points=\"%.1f,%.1f", sx(0), sy(&c, 0));
		for (size_t k = 0; k < cv->nlevels; k++)
			if (cv->levels[k].valid)
				fprintf(f, " %.1f,%.1f", sx(cv->levels[k].pct),
					sy(&c, cv->levels[k].est));
		fputs("\"/>", f);
	}
	if (isfinite(cv->impact))
		fprintf(f, "<line class=\"fit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			"<title>least-squares line: impact %+.1f%%</title></line>",
			sx(0), sy(&c, 0), sx(100), sy(&c, cv->impact), 100 * cv->impact);
	for (size_t k = 0; k < cv->nlevels; k++) {
		const struct stats_level *lv = &cv->levels[k];

		if (!isfinite(lv->est))
			continue;
		fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%u%%: ",
			lv->valid ? "pt" : "pt-weak", sx(lv->pct), sy(&c, lv->est), lv->pct);
		if (lv->valid)
			fprintf(f, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * lv->est, 100 * lv->lo,
				100 * lv->hi);
		else
			fprintf(f, "%+.1f%% (not enough data)", 100 * lv->est);
		fprintf(f, ", %u experiments</title></circle>", lv->n_exp);
	}
	fputs("</svg>", f);
}

/* A data-* attribute: a number, or "NaN" for the script to put last. */
static void
attr_num(FILE *f, const char *name, double v)
{
	if (isfinite(v))
		fprintf(f, " data-%s=\"%.6g\"", name, v);
	else
		fprintf(f, " data-%s=\"NaN\"", name);
}

static void
attr_str(FILE *f, const char *name, const char *v)
{
	fprintf(f, " data-%s=\"", name);
	escape_html(f, v ? v : "");
	fputc('"', f);
}

static int
verdict_order(enum stats_verdict v)
{
	return v == VERDICT_OPTIMIZE ? 0 : v == VERDICT_NO_EFFECT ? 1 :
	       v == VERDICT_NOT_ENOUGH ? 2 : 3;
}

static const char *
verdict_class(enum stats_verdict v)
{
	return v == VERDICT_OPTIMIZE ? "v-optimize" : v == VERDICT_CONTENTION ?
	       "v-contention" : "v-none";
}

/* "+12.3% [+10.1, +14.5]" (pct), or "+0.31 [+0.20, +0.42]". */
static void
interval_cell(FILE *f, bool valid, double est, double lo, double hi, bool pct)
{
	double scale = pct ? 100 : 1;

	fputs("<td class=\"num\">", f);
	if (isfinite(est)) {
		fprintf(f, pct ? "%+.1f%%" : "%+.2f", scale * est);
		if (valid && isfinite(lo) && isfinite(hi))
			fprintf(f, " <small>[%+.*f, %+.*f]</small>", pct ? 1 : 2, scale * lo,
				pct ? 1 : 2, scale * hi);
	} else {
		fputc('-', f);
	}
	fputs("</td>", f);
}

static void
curve_row(FILE *f, const struct profile *p, const struct stats_curve *cv, size_t rank)
{
	struct causal_target d;
	char *loc = causal_target_location(p->lines, cv->target, cv->is_func);
	double samp = NAN;

	causal_target_describe(p->lines, cv->target, cv->is_func, &d);
	if (p->meta.samples_total)
		samp = 100.0 * (double) d.samples / (double) p->meta.samples_total;
	fprintf(f, "<tr data-rank=\"%zu\"", rank);
	attr_str(f, "location", loc);
	attr_str(f, "function", d.func);
	attr_num(f, "samples", samp);
	attr_num(f, "impact", cv->impact);
	attr_num(f, "slope", cv->slope_valid ? cv->slope : NAN);
	fprintf(f, " data-verdict=\"%d\">", verdict_order(cv->verdict));
	fprintf(f, "<td class=\"num\">%zu</td><td title=\"", rank);
	escape_html(f, loc);
	fputs("\">", f);
	if (cv->is_func || !d.file) {
		escape_html(f, loc);
	} else {
		escape_html(f, base_name(d.file));
		fprintf(f, ":%u", d.line);
	}
	fputs("</td><td>", f);
	escape_html(f, d.func ? d.func : "?");
	fputs("</td><td class=\"num\">", f);
	if (isfinite(samp))
		fprintf(f, "%.1f%%", samp);
	else
		fputc('-', f);
	fputs("</td>", f);
	interval_cell(f, stats_curve_measured(cv), cv->impact, cv->impact_lo, cv->impact_hi,
		      true);
	interval_cell(f, cv->slope_valid, cv->slope_valid ? cv->slope : NAN, cv->slope_lo,
		      cv->slope_hi, false);
	fprintf(f, "<td class=\"num\">%u</td><td class=\"%s\">%s</td><td>",
		cv->n_exp, verdict_class(cv->verdict), stats_verdict_name(cv->verdict));
	svg_curve(f, cv);
	fputs("</td></tr>\n", f);
	free(loc);
}

static void
point_section(FILE *f, struct profile *p, const struct progress_point *pt, unsigned top)
{
	size_t ncv, shown;
	const struct stats_curve *cv = stats_curves(p->stats, pt->id, &ncv);

	fputs("<section class=\"point\">\n<h2>Progress point &ldquo;", f);
	escape_html(f, pt->name);
	fprintf(f, "&rdquo; (%s)</h2>\n", pt->kind == PROGRESS_LATENCY ? "latency" : "throughput");
	fprintf(f, "<p>Predicted program speedup if the %s ran faster; each curve is "
		"drawn with its 95%% band (the real speedup's: the model error in), "
		"the dashed line is the fit "
		"whose value at 100%% is the impact.</p>\n",
		p->meta.by_function ? "function" : "line");
	if (!ncv) {
		fputs("<p>No experiment with a speedup measured this point.</p>\n</section>\n", f);
		return;
	}
	fprintf(f, "<table class=\"causal\" id=\"point-%u\"><thead><tr>"
		"<th data-key=\"rank\" data-type=\"num\" data-first=\"asc\">rank</th>"
		"<th data-key=\"location\" data-first=\"asc\">location</th>"
		"<th data-key=\"function\" data-first=\"asc\">function</th>"
		"<th data-key=\"samples\" data-type=\"num\" data-first=\"desc\">samp%%</th>"
		"<th data-key=\"impact\" data-type=\"num\" data-first=\"desc\">impact [95%%]</th>"
		"<th data-key=\"slope\" data-type=\"num\" data-first=\"desc\">slope near 0</th>"
		"<th>exp.</th>"
		"<th data-key=\"verdict\" data-type=\"num\" data-first=\"asc\">verdict</th>"
		"<th>curve</th></tr></thead>\n<tbody>\n", pt->id);
	shown = top && top < ncv ? top : ncv;
	for (size_t k = 0; k < shown; k++)
		curve_row(f, p, &cv[k], k + 1);
	fputs("</tbody></table>\n", f);
	if (shown < ncv)
		fprintf(f, "<p>%zu more not shown (--top).</p>\n", ncv - shown);
	fputs("</section>\n", f);
}

static void
when(FILE *f, uint64_t realtime_ns)
{
	time_t t = (time_t) (realtime_ns / 1000000000);
	struct tm tm;
	char buf[64];

	if (!realtime_ns || !gmtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
		fputc('-', f);
	else
		fputs(buf, f);
}

static void
runs_section(FILE *f, const struct profile *p)
{
	fputs("<h2>Runs</h2>\n<table class=\"runs\"><thead><tr><th>#</th><th>file</th>"
	      "<th>format</th><th>command</th><th>started</th><th>duration</th>"
	      "<th>experiments</th><th>baselines</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < p->nruns; i++) {
		const struct profile_run *r = &p->runs[i];

		fprintf(f, "<tr><td class=\"num\">%zu</td><td>", i + 1);
		escape_html(f, r->file);
		fprintf(f, ":%u</td><td>%s</td><td>", r->line, r->format);
		escape_html(f, r->command ? r->command : "-");
		fputs("</td><td>", f);
		when(f, r->startup_realtime_ns);
		fputs("</td><td class=\"num\">", f);
		if (r->duration_ns)
			fprintf(f, "%.1f s", r->duration_ns / 1e9);
		else
			fputc('-', f);
		fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n",
			r->experiments, r->baselines);
	}
	fputs("</tbody></table>\n", f);
}

static void
points_section(FILE *f, const struct profile *p)
{
	size_t n;
	struct progress_point *const *v = progress_points(p->progress, &n);

	fputs("<h2>Progress points</h2>\n<table class=\"points\"><thead><tr><th>name</th>"
	      "<th>kind</th><th>source</th><th>count</th><th>arrivals</th><th>measured</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		bool lat = v[i]->kind == PROGRESS_LATENCY;

		fputs("<tr><td>", f);
		escape_html(f, v[i]->name);
		fprintf(f, "</td><td>%s</td><td>", lat ? "latency" : "throughput");
		escape_html(f, v[i]->source);
		fprintf(f, "</td><td class=\"num\">%llu</td><td class=\"num\">",
			(unsigned long long) v[i]->count);
		if (lat)
			fprintf(f, "%llu", (unsigned long long) v[i]->arrivals);
		else
			fputc('-', f);
		fprintf(f, "</td><td>%s</td></tr>\n",
			causal_point_measured(p->stats, v[i]->id) ? "yes" : "no");
	}
	fputs("</tbody></table>\n", f);
}

static void
meta_row(FILE *f, const char *key, const char *val)
{
	fprintf(f, "<tr><td>%s</td><td>", key);
	escape_html(f, val ? val : "-");
	fputs("</td></tr>\n", f);
}

static void
meta_section(FILE *f, const struct profile *p)
{
	const struct causal_meta *m = &p->meta;
	size_t nrecs, nbase = stats_baselines(p->stats);
	char buf[128];

	stats_records(p->stats, &nrecs);
	fputs("<table class=\"meta\"><tbody>\n", f);
	meta_row(f, "command", p->nruns ? p->runs[0].command : NULL);
	meta_row(f, "executable", m->exe);
	meta_row(f, "build id", m->build_id);
	snprintf(buf, sizeof(buf), "%zu", p->nruns);
	meta_row(f, "runs", buf);
	snprintf(buf, sizeof(buf), "%zu with a speedup, %zu baselines", nrecs - nbase, nbase);
	meta_row(f, "experiments", buf);
	if (m->end_ns > m->start_ns) {
		double span = (double) (m->end_ns - m->start_ns);

		if (m->delay_unknown)
			snprintf(buf, sizeof(buf), "%.1f s", span / 1e9);
		else
			snprintf(buf, sizeof(buf), "%.1f s, %.1f%% of it delay inserted",
				 span / 1e9, 100.0 * (double) m->delay_ns / span);
		meta_row(f, "profiled", buf);
	}
	if (m->period_ns) {
		snprintf(buf, sizeof(buf), "%.3g ms", m->period_ns / 1e6);
		meta_row(f, "sampling period", buf);
	}
	meta_row(f, "sampler", m->sampler);
	meta_row(f, "wake-ups", m->wake_tracking);
	fputs("</tbody></table>\n", f);
}

int
html_write(FILE *f, struct profile *p, unsigned top)
{
	size_t n;
	struct progress_point *const *v = progress_points(p->progress, &n);
	size_t nmeasured = 0;

	fputs(page_head, f);
	fputs("<title>causaltop report", f);
	if (p->nruns && p->runs[0].command) {
		fputs(": ", f);
		escape_html(f, p->runs[0].command);
	}
	fputs("</title>\n", f);
	fputs(page_error_hook, f);
	fputs(page_style, f);
	fputs("</head>\n<body>\n<h1>Causal profile</h1>\n", f);
	meta_section(f, p);
	for (size_t i = 0; i < n; i++) {
		if (!causal_point_measured(p->stats, v[i]->id))
			continue;
		point_section(f, p, v[i], top);
		nmeasured++;
	}
	if (!nmeasured)
		fputs("<p>No progress was measured during the causal experiments.</p>\n", f);
	points_section(f, p);
	runs_section(f, p);
	fprintf(f, "<p><small>Written by causaltop %s.</small></p>\n", PACKAGE_VERSION);
	fputs(page_script, f);
	fputs("</body>\n</html>\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}

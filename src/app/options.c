#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app/options.h"
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "perf/probe.h"
#include "sym/symname.h"

/*
 * Every long option here appears in man/causaltop.1 and in the usage text;
 * tests/options-man.test checks that the three agree.
 */
#define OPT_STR_(x) #x
#define OPT_STR(x) OPT_STR_(x)

static const char usage_text[] =
"Usage: causaltop [record] [OPTIONS] -- COMMAND [ARGS...]\n"
"       causaltop [record] [OPTIONS] -p PID[,PID...]\n"
"       causaltop report [OPTIONS] [PROFILE...]   (see causaltop report --help)\n"
"       causaltop diff [OPTIONS] OLD NEW          (see causaltop diff --help)\n"
"\n"
"A causal profiler that works from outside the target, as a ptrace\n"
"supervisor of every thread.\n"
"\n"
"Target:\n"
"  -p, --pid=PID[,PID...]    attach to running processes (all their threads;\n"
"                            -p may be repeated; with -f, their children too)\n"
"  -f, --follow-forks        also profile child processes (fork, vfork; with\n"
"                            -p, the children they already have as well)\n"
"      --duration=SECONDS    stop profiling and detach after SECONDS\n"
"      --until-answer[=SECONDS]\n"
"                            stop once the top line is decided (significant and\n"
"                            ahead of the rest), or say it is undecided after\n"
"                            SECONDS (default 30)\n"
"      --end-to-end          each run of COMMAND is one unit of progress\n"
"      --runs=N              run COMMAND N times, one after the other, and pool\n"
"                            the runs' experiments in one profile (default 1)\n"
"      --no-coz-shim         do not preload the Coz compatibility library\n"
"\n"
"Progress points without recompiling (SPEC: FUNCTION, [DSO:]FUNCTION,\n"
"FILE:LINE or DSO:0xADDR):\n"
"      --progress=SPEC       count executions of SPEC (repeatable)\n"
"      --latency=BEGIN,END   a transaction begins at BEGIN, ends at END (repeatable)\n"
"      --probe-mode=MODE     patch, breakpoint, uprobe or auto (default auto: a\n"
"                            counter patched into the code, else hardware\n"
"                            breakpoints, uprobes when out of debug registers)\n"
"\n"
"Causal experiments:\n"
"      --fixed-line=LOC      only experiment on LOC (FILE:LINE, a path suffix,\n"
"                            or FUNCTION)\n"
"      --fixed-speedup=PCT   only this speedup (0 to 100), against 0% baselines\n"
"      --granularity=G       line or function (default line: functions where\n"
"                            there is no line info)\n"
"      --seed=N              seed of the experiment scheduler (default: clock)\n"
"      --wake-tracking=MODE  sched, waking, syscall or auto (default auto: sched\n"
"                            if the sched_waking tracepoint can be used;\n"
"                            waking: without following context switches)\n"
"      --no-experiments      sample only: a flat profile, no virtual speedups\n"
"\n"
"Sampling:\n"
"      --period=MS           sampling period in ms of thread CPU time (default 1,\n"
"                            or 2 where a sample costs the program 20 us or more)\n"
"      --sampler=MODE        cpu, thread or auto (default auto: cpu if permitted)\n"
"      --event=EVENT         task-clock, cpu-clock, cycles or auto (default auto)\n"
"      --unwind=MODE         fp, or dwarf[,BYTES]: repair callchains broken by\n"
"                            code without frame pointers with DWARF CFI over\n"
"                            BYTES of stack copied per sample (default dwarf:\n"
"                            " OPT_STR(OPT_UNWIND_STACK_DEFAULT) " bytes at a period of 1 ms or more, fewer below)\n"
"      --realtime=PRIO       run causaltop itself at SCHED_FIFO priority PRIO\n"
"                            (1 to 99; 0, the default: off), so a stopped\n"
"                            thread never waits for a CPU for it\n"
"  -b, --binary-scope=GLOB   profile code in binaries matching GLOB (repeatable;\n"
"                            default MAIN, the main executable; % is a wildcard)\n"
"  -s, --source-scope=GLOB   profile code in source files matching GLOB\n"
"                            (repeatable; default all)\n"
"\n"
"Output:\n"
"      --no-tui              batch mode: print the report at exit (the default\n"
"                            when stdin or stdout is not a terminal)\n"
"      --report=FILE         the report into FILE (- for stdout; default stderr,\n"
"                            leaving stdout to the program)\n"
"  -q, --quiet               no report and no notes: errors and warnings only\n"
"      --no-color            a monochrome TUI (also when NO_COLOR is set)\n"
"  -o, --output=FILE         add the causal profile to FILE (Coz's format; the\n"
"                            runs it holds are kept, as Coz does; - for stdout)\n"
"      --json=FILE           write the causal profile to FILE as JSON (one that\n"
"                            exists is moved to FILE.old first; - for stdout)\n"
"      --report-interval=SECONDS\n"
"                            with --no-tui, print the ranked table every SECONDS\n"
"      --top=N               show the N hottest lines, functions, threads and\n"
"                            causal rows (default 20)\n"
"      --trace-log=FILE      log ptrace events (attach, clone, signals, exit)\n"
"  -v, --verbose             more detail; twice for debug messages\n"
"  -h, --help                show this help and exit\n"
"  -V, --version             show the version and exit\n";

enum {
	OPT_DURATION = 0x100,
	OPT_UNTIL_ANSWER,
	OPT_PERIOD,
	OPT_SAMPLER,
	OPT_EVENT,
	OPT_UNWIND,
	OPT_NO_TUI,
	OPT_NO_COLOR,
	OPT_TOP,
	OPT_TRACE_LOG,
	OPT_END_TO_END,
	OPT_RUNS,
	OPT_NO_COZ_SHIM,
	OPT_PROGRESS,
	OPT_LATENCY,
	OPT_PROBE_MODE,
	OPT_FIXED_LINE,
	OPT_FIXED_SPEEDUP,
	OPT_GRANULARITY,
	OPT_SEED,
	OPT_WAKE_TRACKING,
	OPT_NO_EXPERIMENTS,
	OPT_JSON,
	OPT_REPORT_INTERVAL,
	OPT_REALTIME,
	OPT_REPORT,
};

static const struct option long_options[] = {
	{ "pid",		required_argument, NULL, 'p' },
	{ "follow-forks",	no_argument,	   NULL, 'f' },
	{ "duration",		required_argument, NULL, OPT_DURATION },
	{ "until-answer",	optional_argument, NULL, OPT_UNTIL_ANSWER },
	{ "end-to-end",		no_argument,	   NULL, OPT_END_TO_END },
	{ "runs",		required_argument, NULL, OPT_RUNS },
	{ "no-coz-shim",	no_argument,	   NULL, OPT_NO_COZ_SHIM },
	{ "progress",		required_argument, NULL, OPT_PROGRESS },
	{ "latency",		required_argument, NULL, OPT_LATENCY },
	{ "probe-mode",		required_argument, NULL, OPT_PROBE_MODE },
	{ "fixed-line",		required_argument, NULL, OPT_FIXED_LINE },
	{ "fixed-speedup",	required_argument, NULL, OPT_FIXED_SPEEDUP },
	{ "granularity",	required_argument, NULL, OPT_GRANULARITY },
	{ "seed",		required_argument, NULL, OPT_SEED },
	{ "wake-tracking",	required_argument, NULL, OPT_WAKE_TRACKING },
	{ "no-experiments",	no_argument,	   NULL, OPT_NO_EXPERIMENTS },
	{ "json",		required_argument, NULL, OPT_JSON },
	{ "report-interval",	required_argument, NULL, OPT_REPORT_INTERVAL },
	{ "report",		required_argument, NULL, OPT_REPORT },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "period",		required_argument, NULL, OPT_PERIOD },
	{ "sampler",		required_argument, NULL, OPT_SAMPLER },
	{ "unwind",		required_argument, NULL, OPT_UNWIND },
	{ "event",		required_argument, NULL, OPT_EVENT },
	{ "binary-scope",	required_argument, NULL, 'b' },
	{ "source-scope",	required_argument, NULL, 's' },
	{ "no-tui",		no_argument,	   NULL, OPT_NO_TUI },
	{ "no-color",		no_argument,	   NULL, OPT_NO_COLOR },
	{ "output",		required_argument, NULL, 'o' },
	{ "top",		required_argument, NULL, OPT_TOP },
	{ "trace-log",		required_argument, NULL, OPT_TRACE_LOG },
	{ "realtime",		required_argument, NULL, OPT_REALTIME },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'causaltop --help' for more information.\n");
	exit(CT_EXIT_USAGE);
}

/* A positive finite decimal, scaled to ns; 0 means malformed. */
static uint64_t
parse_ns(const char *s, double unit_ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v * unit_ns > 1e18)
		return 0;
	return (uint64_t) (v * unit_ns) ? (uint64_t) (v * unit_ns) : 1;
}

/*
 * A --fixed-line: FILE:LINE (a decimal LINE from 1 after the last
 * colon), or a function name, which may hold colons (C++'s "::") but
 * not end with one.
 */
static bool
fixed_line_ok(const char *s)
{
	/* The engine's reading (schedule.c): "ns::f" is a function. */
	const char *colon = symname_colon(s), *p;
	bool digits;

	if (!*s)
		return false;
	if (!colon)
		return true;
	if (!colon[1])
		return false;
	digits = true;
	for (p = colon + 1; *p; p++)
		digits = digits && isdigit((unsigned char) *p);
	return digits && colon > s && strtoul(colon + 1, NULL, 10) > 0;
}

static const char **
push(const char **arr, size_t *n, const char *s)
{
	arr = xrealloc(arr, (*n + 1) * sizeof(*arr));
	arr[(*n)++] = s;
	return arr;
}


/* -p 12,34 and -p 12 -p 34 alike; a pid given twice is one process. */
static void
add_pids(struct options *o, const char *arg)
{
	const char *p = arg;

	do {
		char *end;
		long v;
		size_t i;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v <= 0 || v > INT_MAX ||
		    !isdigit((unsigned char) *p))
			usage_error("invalid process id '%s'", arg);
		for (i = 0; i < o->n_pids && o->pids[i] != (pid_t) v; i++)
			;
		if (i == o->n_pids) {
			o->pids = xrealloc(o->pids, (o->n_pids + 1) * sizeof(*o->pids));
			o->pids[o->n_pids++] = (pid_t) v;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p)
			usage_error("invalid process id '%s'", arg);
	} while (*p);
	o->pid = o->pids[0];
}
void
options_parse(struct options *o, int argc, char **argv)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->period_ns = 1000000;
	o->period_auto = true;
	o->unwind_stack = OPT_UNWIND_STACK_AUTO;
	o->top = 20;
	o->fixed_speedup = -1;
	/*
	 * "+": stop at the first non-option, which starts the command; ":"
	 * and opterr 0: getopt's messages would name argv[0], a full path.
	 */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:fb:s:o:qvhV", long_options, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'p':
			add_pids(o, optarg);
			break;
		case 'f':
			o->follow_forks = true;
			break;
		case OPT_DURATION:
			if (!(o->duration_ns = parse_ns(optarg, 1e9)))
				usage_error("invalid duration '%s' (seconds, > 0)", optarg);
			break;
		case OPT_UNTIL_ANSWER:
			o->until_answer_ns = optarg ? parse_ns(optarg, 1e9) : 30000000000ULL;
			if (!o->until_answer_ns)
				usage_error("invalid --until-answer '%s' (seconds, > 0)", optarg);
			break;
		case OPT_END_TO_END:
			o->end_to_end = true;
			break;
		case OPT_PROGRESS:
			o->progress = push(o->progress, &o->n_progress, optarg);
			break;
		case OPT_LATENCY:
			if (!strchr(optarg, ','))
				usage_error("invalid --latency '%s' (BEGIN_SPEC,END_SPEC)", optarg);
			o->latency = push(o->latency, &o->n_latency, optarg);
			break;
		case OPT_PROBE_MODE:
			if ((o->probe_mode = probe_mode_from_name(optarg)) < 0)
				usage_error("invalid --probe-mode '%s' (auto, patch, breakpoint or uprobe)",
					    optarg);
			break;
		case OPT_FIXED_LINE:
			if (!fixed_line_ok(optarg))
				usage_error("invalid --fixed-line '%s' (FILE:LINE, LINE from 1, "
					    "or a function)", optarg);
			o->fixed_line = optarg;
			break;
		case OPT_FIXED_SPEEDUP:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 100)
				usage_error("invalid --fixed-speedup '%s' (0 to 100)", optarg);
			o->fixed_speedup = (int) v;
			break;
		case OPT_GRANULARITY:
			if (!strcmp(optarg, "function"))
				o->by_function = true;
			else if (strcmp(optarg, "line"))
				usage_error("invalid --granularity '%s' (line or function)", optarg);
			break;
		case OPT_SEED: {
			unsigned long long u;

			errno = 0;
			u = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-')
				usage_error("invalid --seed '%s'", optarg);
			/* 0 would mean "from the clock": any fixed value is a seed. */
			o->seed = u ? u : 1;
			break;
		}
		case OPT_WAKE_TRACKING:
			if (!strcmp(optarg, "auto"))
				o->wake_tracking = WAKE_TRACKING_AUTO;
			else if (!strcmp(optarg, "sched"))
				o->wake_tracking = WAKE_TRACKING_SCHED;
			else if (!strcmp(optarg, "waking"))
				o->wake_tracking = WAKE_TRACKING_WAKING;
			else if (!strcmp(optarg, "syscall"))
				o->wake_tracking = WAKE_TRACKING_SYSCALL;
			else
				usage_error("invalid --wake-tracking '%s' (sched, waking, syscall or auto)",
					    optarg);
			break;
		case OPT_NO_EXPERIMENTS:
			o->no_experiments = true;
			break;
		case OPT_REALTIME: {
			char *rend;
			long prio;

			errno = 0;
			prio = strtol(optarg, &rend, 10);
			if (errno || rend == optarg || *rend || prio < 0 || prio > 99)
				usage_error("invalid --realtime '%s' (0 to 99)", optarg);
			o->realtime = (int) prio;
			break;
		}
		case OPT_JSON:
			if (!*optarg)
				usage_error("%s", "empty --json (a file, or - for stdout)");
			o->json = optarg;
			break;
		case OPT_REPORT_INTERVAL:
			if (!(o->report_interval_ns = parse_ns(optarg, 1e9)))
				usage_error("invalid --report-interval '%s' (seconds, > 0)", optarg);
			break;
		case OPT_REPORT:
			if (!*optarg)
				usage_error("%s", "empty --report (a file, or - for stdout)");
			o->report = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_NO_COZ_SHIM:
			o->no_coz_shim = true;
			break;
		case OPT_RUNS:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > 1000000)
				usage_error("invalid --runs '%s'", optarg);
			o->runs = (unsigned) v;
			break;
		case OPT_PERIOD:
			o->period_ns = parse_ns(optarg, 1e6);
			if (o->period_ns < 10000 || o->period_ns > 10000000000ULL)
				usage_error("invalid period '%s' (ms, 0.01 to 10000)", optarg);
			o->period_auto = false;
			break;
		case OPT_UNWIND: {
			unsigned long long u = OPT_UNWIND_STACK_DEFAULT;

			if (!strcmp(optarg, "fp")) {
				o->unwind_stack = 0;
				break;
			}
			if (strncmp(optarg, "dwarf", 5) || (optarg[5] && optarg[5] != ','))
				usage_error("invalid --unwind '%s' (fp, or dwarf[,BYTES])", optarg);
			if (optarg[5]) {
				errno = 0;
				u = strtoull(optarg + 6, &end, 10);
				if (errno || end == optarg + 6 || *end || u < 8 ||
				    u > OPT_UNWIND_STACK_MAX)
					usage_error("invalid --unwind '%s' (BYTES: 8 to %u)", optarg,
						    OPT_UNWIND_STACK_MAX);
			}
			/* The kernel wants a multiple of 8. */
			o->unwind_stack = (unsigned) ((u + 7) & ~7ULL);
			break;
		}
		case OPT_SAMPLER:
			if (!strcmp(optarg, "cpu"))
				o->sampler = SAMPLER_CPU;
			else if (!strcmp(optarg, "thread"))
				o->sampler = SAMPLER_THREAD;
			else if (!strcmp(optarg, "auto"))
				o->sampler = SAMPLER_AUTO;
			else
				usage_error("invalid sampler '%s' (cpu, thread or auto)", optarg);
			break;
		case OPT_EVENT:
			if (!strcmp(optarg, "task-clock"))
				o->event = SAMPLER_EV_TASK_CLOCK;
			else if (!strcmp(optarg, "cpu-clock"))
				o->event = SAMPLER_EV_CPU_CLOCK;
			else if (!strcmp(optarg, "cycles"))
				o->event = SAMPLER_EV_CYCLES;
			else if (!strcmp(optarg, "auto"))
				o->event = SAMPLER_EV_AUTO;
			else
				usage_error("invalid event '%s' (task-clock, cpu-clock, cycles, auto)",
					    optarg);
			break;
		case 'b':
			if (!*optarg)
				usage_error("%s", "empty -b (a binary scope: a pattern or MAIN)");
			o->binary_scope = push(o->binary_scope, &o->n_binary_scope, optarg);
			break;
		case 's':
			if (!*optarg)
				usage_error("%s", "empty -s (a source scope: a pattern)");
			o->source_scope = push(o->source_scope, &o->n_source_scope, optarg);
			break;
		case OPT_NO_TUI:
			o->no_tui = true;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case 'o':
			if (!*optarg)
				usage_error("%s", "empty -o (a file, or - for stdout)");
			o->output = optarg;
			break;
		case OPT_TOP:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0 || v > 100000)
				usage_error("invalid --top '%s'", optarg);
			o->top = (unsigned) v;
			break;
		case OPT_TRACE_LOG:
			o->trace_log = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("causaltop %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			if (!strncmp(argv[optind - 1], "--", 2))
				usage_error("option '%s' needs an argument", argv[optind - 1]);
			usage_error("option '-%c' needs an argument", optopt);
		default: {
			/* A long option is whole in argv; a short one is optopt. */
			const char *arg = argv[optind - 1];

			if (!strncmp(arg, "--", 2) && strchr(arg, '='))
				usage_error("option '%s': unknown, or takes no argument", arg);
			if (!strncmp(arg, "--", 2))
				usage_error("unknown or ambiguous option '%s'", arg);
			usage_error("unknown option '-%c'", optopt);
		}
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->pid && o->cmd)
		usage_error("%s", "give either -p PID or a command, not both");
	if (!o->pid && !o->cmd)
		usage_error("%s", "nothing to profile: give -p PID or -- COMMAND [ARGS...]");
	if (o->end_to_end && o->pid)
		usage_error("%s", "--end-to-end runs a command: it does not work with -p");
	if (o->until_answer_ns && (o->end_to_end || o->no_experiments))
		usage_error("%s", "--until-answer waits for the experiments' answer: not with "
			    "--end-to-end or --no-experiments");
	if (o->runs > 1 && o->pid)
		usage_error("%s", "--runs runs a command again: it does not work with -p");
	if (!o->runs)
		o->runs = 1;
	if (o->quiet && (o->report || o->report_interval_ns))
		usage_error("%s", "--quiet prints no report: not with --report or --report-interval");
	if (o->no_experiments && (o->fixed_line || o->fixed_speedup >= 0))
		usage_error("%s", "--fixed-line and --fixed-speedup need experiments");
	/*
	 * The default copy shrinks with shorter periods, down to 512 bytes
	 * (enough for a leaf like strlen): the rings must hold tens of ms
	 * of samples.  At 0.1 ms, 4 KB copies lost bursts of samples while
	 * causaltop handled 10,000 thread creations (manythreads.test).
	 */
	if (o->unwind_stack == OPT_UNWIND_STACK_AUTO) {
		uint64_t b = OPT_UNWIND_STACK_DEFAULT * o->period_ns / 1000000;

		b = b < 512 ? 512 : b > OPT_UNWIND_STACK_DEFAULT ? OPT_UNWIND_STACK_DEFAULT : b;
		o->unwind_stack = (unsigned) ((b + 7) & ~7ULL);
	}
	/* https://no-color.org: set and not empty. */
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		o->no_color = true;
	debug_flag = o->verbose >= 2;
}

void
options_free(struct options *o)
{
	free(o->binary_scope);
	free(o->source_scope);
	free(o->progress);
	free(o->latency);
	free(o->pids);
}

/*
 * Getting hold of the target: launch a command traced from its first
 * instruction, or seize every thread of a running process.  Failures are
 * diagnosed (strace's diagnose_attach_eperm in spirit) and each has its
 * own exit code.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "app/session.h"
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/probe.h"
#include "perf/progress.h"
#include "ptrace/patch.h"
#include "ptrace/sancheck.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "ptrace/tracelog.h"

#define TRACE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
#define FORK_OPTIONS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

static long
ptrace_options(const struct session *s, bool launched)
{
	long o = TRACE_OPTIONS;

	/* Without -f, forked children are never traced at all. */
	if (s->opts.follow_forks)
		o |= FORK_OPTIONS;
	/* Never for -p: killing a process we merely attached to would be wrong. */
	if (launched)
		o |= PTRACE_O_EXITKILL;
	return o;
}

/*
 * Search PATH as execvp would, so "command not found" is reported by
 * causaltop with its own exit code instead of by a child that is already
 * being traced.
 */
static char *
resolve_command(const char *name, int *err)
{
	const char *path = getenv("PATH");
	char *found = NULL;
	int first_err = ENOENT;

	if (strchr(name, '/')) {
		*err = access(name, X_OK) ? errno : 0;
		return *err ? NULL : xstrdup(name);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; !found; ) {
		const char *colon = strchrnul(p, ':');
		char *cand = xasprintf("%.*s%s%s", (int) (colon - p), p,
				       colon == p ? "" : "/", name);
		struct stat st;

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0)
				found = cand;
			else if (first_err == ENOENT)
				first_err = errno;
		}
		if (!found)
			free(cand);
		if (!*colon)
			break;
		p = colon + 1;
	}
	*err = found ? 0 : first_err;
	return found;
}

/* What the command's environment gets from causaltop, set in the child. */
struct launch_env {
	char *preload;		/* LD_PRELOAD, or NULL to leave it */
	const char *san_var;	/* ASAN_OPTIONS or LSAN_OPTIONS, or NULL */
	char *san_value;
};

/*
 * A sanitized command: ASan's shared runtime aborts unless it is loaded
 * first, so it goes before the Coz shim; LeakSanitizer fails the program
 * at exit under any tracer, so it is turned off unless the user chose.
 */
static void
launch_env_init(struct session *s, const char *path, struct launch_env *le)
{
	const char *old = getenv("LD_PRELOAD"), *opts;
	struct san_runtime rt;
	char *first = NULL;

	memset(le, 0, sizeof(*le));
	san_probe(path, &rt);
	if (s->coz_shim) {
		if (rt.asan_needed) {
			first = xasprintf("%s:", rt.asan_needed);
			error_msg("%s uses AddressSanitizer: preloading %s before the Coz shim",
				  path, rt.asan_needed);
		}
		le->preload = xasprintf("%s%s%s%s", first ? first : "", s->coz_shim,
					old && *old ? ":" : "", old && *old ? old : "");
		free(first);
	}
	if (rt.asan || rt.lsan) {
		le->san_var = rt.asan ? "ASAN_OPTIONS" : "LSAN_OPTIONS";
		opts = getenv(le->san_var);
		if (opts && strstr(opts, "detect_leaks")) {
			le->san_var = NULL;
		} else {
			le->san_value = xasprintf("%s%sdetect_leaks=0", opts && *opts ? opts : "",
						  opts && *opts ? ":" : "");
			error_msg("%s uses LeakSanitizer, which cannot run under a tracer: "
				  "%s=%s", path, le->san_var, le->san_value);
		}
	}
	san_free(&rt);
}

static void
launch_env_free(struct launch_env *le)
{
	free(le->preload);
	free(le->san_value);
}

void
trace_launch(struct session *s)
{
	char **argv = s->opts.cmd;
	int gate[2], err;
	char *path = resolve_command(argv[0], &err);
	struct launch_env le;
	struct ctproc *p;
	pid_t pid;

	if (!path) {
		errno = err;
		if (err == ENOENT)
			error_msg_and_die(CT_EXIT_NOCMD, "%s: command not found", argv[0]);
		perror_msg_and_die(CT_EXIT_NOEXEC, "cannot execute '%s'", argv[0]);
	}
	launch_env_init(s, path, &le);
	if (pipe2(gate, O_CLOEXEC) < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "pipe");

	pid = fork();
	if (pid < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "fork");
	if (pid == 0) {
		char c;

		/*
		 * Wait until the parent has seized us: then the exec is the
		 * first thing it sees, and the target gets no stray SIGSTOP
		 * or SIGCONT (strace's startup has it receive both).
		 */
		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		close(gate[0]);
		/*
		 * The TUI owns the terminal: the command's output goes to its
		 * log, and it reads nothing from the keyboard.
		 */
		if (s->child_output > 0) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0 && null != STDIN_FILENO) {
				dup2(null, STDIN_FILENO);
				close(null);
			}
			dup2(s->child_output, STDOUT_FILENO);
			dup2(s->child_output, STDERR_FILENO);
		}
		/* The target gets the signal mask causaltop was started with. */
		sigprocmask(SIG_SETMASK, &s->orig_sigmask, NULL);
		/* Its progress macros count from the start, not from discovery. */
		setenv(PROGRESS_ENV, "1", 1);
		/* Programs instrumented for Coz find their counters in it. */
		if (le.preload)
			setenv("LD_PRELOAD", le.preload, 1);
		if (le.san_var)
			setenv(le.san_var, le.san_value, 1);
		execv(path, argv);
		fprintf(stderr, "causaltop: cannot execute '%s': %s\n", path, strerror(errno));
		_exit(errno == ENOENT ? CT_EXIT_NOCMD : CT_EXIT_NOEXEC);
	}
	close(gate[0]);
	free(path);
	launch_env_free(&le);
	if (ptrace(PTRACE_SEIZE, pid, 0L, ptrace_options(s, true)) < 0) {
		err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = err;
		perror_msg_and_die(err == EPERM ? CT_EXIT_PTRACE_PERM : CT_EXIT_INTERNAL,
				   "cannot trace the command (PTRACE_SEIZE)%s",
				   err == EPERM ? "; is ptrace forbidden here (seccomp, container)?" : "");
	}
	s->launched = pid;
	p = proc_new(pid);
	/* Sampling starts at the exec: the child runs causaltop's code until then. */
	trace_new_thread(s, pid, p)->flags &= ~TCB_STARTUP;
	close(gate[1]);
}

static bool
pid_is_ancestor(pid_t pid)
{
	for (pid_t p = getppid(); p > 1; ) {
		char path[64], buf[1024];
		FILE *f;
		int ppid = 0;
		char *q;
		size_t n;

		if (p == pid)
			return true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int) p);
		if (!(f = fopen(path, "re")))
			return false;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		q = strrchr(buf, ')');
		if (!q || sscanf(q + 1, " %*c %d", &ppid) != 1)
			return false;
		p = ppid;
	}
	return false;
}

/* Why did PTRACE_SEIZE say EPERM?  Say what we can find out. */
static void __attribute__((noreturn))
diagnose_eperm(pid_t pid)
{
	pid_t tracer = procfs_tracer(pid);
	long uid = procfs_uid(pid);
	FILE *f;
	int scope = -1;

	if (tracer > 0) {
		char comm[16];

		procfs_comm(tracer, comm);
		error_msg_and_die(CT_EXIT_TRACED,
				  "process %d is already traced by process %d (%s); "
				  "detach that debugger or tracer first",
				  (int) pid, (int) tracer, comm);
	}
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re"))) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	error_msg("cannot attach to process %d: operation not permitted", (int) pid);
	if (uid >= 0 && (uid_t) uid != getuid() && geteuid() != 0)
		error_msg("it belongs to uid %ld and you are uid %d: tracing another "
			  "user's process needs CAP_SYS_PTRACE (run as root)",
			  uid, (int) getuid());
	else if (scope > 0)
		error_msg("kernel.yama.ptrace_scope is %d: attaching to a non-child "
			  "needs CAP_SYS_PTRACE or 'sysctl kernel.yama.ptrace_scope=0'",
			  scope);
	else
		error_msg("the process may be privileged (setuid, or higher "
			  "capabilities) or ptrace may be forbidden here (seccomp, "
			  "container): CAP_SYS_PTRACE is needed");
	exit(CT_EXIT_PTRACE_PERM);
}

static void
validate_pid(pid_t pid)
{
	pid_t tgid;

	if (pid == getpid())
		error_msg_and_die(CT_EXIT_BAD_PID, "process %d is causaltop itself", (int) pid);
	tgid = procfs_tgid(pid);
	if (tgid < 0 && kill(pid, 0) < 0 && errno == ESRCH)
		error_msg_and_die(CT_EXIT_NO_PID, "no such process: %d", (int) pid);
	if (tgid < 0)
		error_msg_and_die(CT_EXIT_NO_PID, "cannot read /proc/%d: no such process "
				  "(or /proc is not mounted)", (int) pid);
	if (tgid == getpid())
		error_msg_and_die(CT_EXIT_BAD_PID, "process %d is a thread of causaltop itself",
				  (int) pid);
	if (procfs_is_kthread(pid))
		error_msg_and_die(CT_EXIT_BAD_PID, "process %d is a kernel thread: only "
				  "user-space processes can be profiled", (int) pid);
	if (pid_is_ancestor(pid))
		error_msg_and_die(CT_EXIT_BAD_PID, "process %d is an ancestor of causaltop: "
				  "tracing it would deadlock", (int) pid);
	if (procfs_tracer(pid) > 0)
		diagnose_eperm(pid);
}

/*
 * LeakSanitizer stops the program's threads with ptrace at exit, which
 * fails while they are traced: the program would exit with status 1.  A
 * running program's environment cannot be changed; the user can detach.
 */
static void
warn_leak_check(pid_t pid)
{
	struct san_runtime rt;
	const char *var;
	char exe[64], *opts;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int) pid);
	san_probe(exe, &rt);
	san_free(&rt);
	if (!rt.asan && !rt.lsan)
		return;
	var = rt.asan ? "ASAN_OPTIONS" : "LSAN_OPTIONS";
	opts = procfs_environ(pid, var);
	if (!opts || !(strstr(opts, "detect_leaks=0") || strstr(opts, "detect_leaks=false")))
		error_msg("process %d uses LeakSanitizer, which fails it at exit if it is "
			  "traced then: detach before it ends (%s=detect_leaks=0 avoids this)",
			  (int) pid, var);
	free(opts);
}

/*
 * Seize every thread of process pid.  A thread we have not seized yet may
 * create new ones, which we would not see: list the threads again until
 * a pass finds none new.  Returns the process, or NULL when it was gone
 * before any thread could be seized.
 */
static struct ctproc *
attach_process(struct session *s, pid_t pid)
{
	struct ctproc *p = proc_new(pid);
	bool added, any = false;

	p->started = true;
	do {
		pid_t *tids;
		int n = procfs_tasks(pid, &tids);

		added = false;
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			struct tcb *t;

			if (tcb_lookup(tids[i]))
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0L, ptrace_options(s, false)) < 0) {
				/* The /proc reads below may change errno. */
				int err = errno;

				if (err == ESRCH)
					continue;	/* exited meanwhile */
				/*
				 * A leader gone with pthread_exit() stays a zombie
				 * while its threads run, and a thread that exits as
				 * it is listed is refused too (its exit_state is
				 * set) before it vanishes: nothing to trace there.
				 * attach-threads' churning target drew such an EPERM
				 * once in a local CI run.
				 */
				if (err == EPERM) {
					char st = procfs_state(tids[i]);

					if (st == 'Z' || st == 'X' || !st)
						continue;
				}
				/*
				 * Created since we seized its creator: traced by
				 * us already (PTRACE_O_TRACECLONE, or a fork with
				 * -f), and adopted at its first stop.  Taken for
				 * someone else's, signals.test failed once in CI
				 * ("already traced by process N (causaltop)", N
				 * being us).
				 */
				if (err == EPERM && procfs_tracer(tids[i]) == getpid())
					continue;
				free(tids);
				if (err == EPERM)
					diagnose_eperm(pid);
				errno = err;
				perror_msg_and_die(CT_EXIT_INTERNAL, "PTRACE_SEIZE %d", (int) tids[i]);
			}
			t = trace_new_thread(s, tids[i], p);
			if (!any)
				trace_proc_image(s, p);
			any = true;
			/* Seized, not stopped: no first stop will come. */
			t->flags &= ~TCB_STARTUP;
			tracelog(tids[i], "+++ attached");
			added = true;
		}
		free(tids);
	} while (added);
	if (!any && !p->nthreads) {
		proc_free(p);
		return NULL;
	}
	warn_leak_check(pid);
	return p;
}

/*
 * With -f, the children a process has already (a server's workers): a
 * child forked after its parent was seized is ours already (fork events),
 * one forked before is found here; theirs in turn, breadth first.
 */
static void
attach_children(struct session *s, pid_t parent)
{
	pid_t *kids;
	int n = procfs_children(parent, &kids);

	for (int i = 0; i < n; i++) {
		if (proc_lookup(kids[i]) || procfs_is_kthread(kids[i]) || procfs_tracer(kids[i]) > 0)
			continue;
		if (attach_process(s, kids[i])) {
			error_msg("process %d: following its child %d", (int) parent, (int) kids[i]);
			attach_children(s, kids[i]);
		}
	}
	if (n > 0)
		free(kids);
}

/*
 * The specs in every process attached: with one, as it says (nonzero is
 * fatal); with several, each must be found in one of them at least (a
 * client and a server differ), and the others count where they are.
 */
static void
attach_probes(struct session *s)
{
	unsigned nprocs = 0;
	int rc;

	for (struct ctproc *p = proc_first(); p; p = p->next) {
		trace_probe_proc(s, p);
		nprocs++;
	}
	for (struct ctproc *p = proc_first(); p; p = p->next) {
		/* Stopped, to patch the counters in (else they count by traps). */
		bool frozen = patch_freeze(s, p);

		rc = probe_resolve(p->probes, p->tgid, p->sym, nprocs > 1 ? PROBE_RESOLVE_QUIET : 0);
		if (frozen)
			patch_thaw(s, p);
		if (rc < 0 || (rc > 0 && nprocs == 1))
			error_msg_and_die(CT_EXIT_SPEC,
					  "cannot count the --progress/--latency locations");
	}
	for (unsigned i = 0; i < probe_nprobes(s->probes); i++) {
		bool found = false;

		for (struct ctproc *p = proc_first(); p && !found; p = p->next)
			found = probe_resolved(p->probes, i);
		if (!found)
			error_msg_and_die(CT_EXIT_SPEC, "progress point '%s' is found in none of "
					  "the %u processes", probe_name(s->probes, i), nprocs);
	}
	for (struct tcb *t = tcb_first(); t; t = t->next)
		trace_probe_open(s, t);
}

void
trace_attach(struct session *s)
{
	struct options *o = &s->opts;

	/* Bad input is found before any process is touched. */
	for (size_t i = 0; i < o->n_pids; i++) {
		pid_t tgid;

		validate_pid(o->pids[i]);
		tgid = procfs_tgid(o->pids[i]);
		if (tgid > 0 && tgid != o->pids[i]) {
			error_msg("%d is a thread of process %d: profiling the whole process",
				  (int) o->pids[i], (int) tgid);
			o->pids[i] = tgid;
		}
	}
	o->pid = o->pids[0];
	for (size_t i = 0; i < o->n_pids; i++) {
		if (proc_lookup(o->pids[i]))
			continue;	/* given twice, or a child of one given */
		if (!attach_process(s, o->pids[i]))
			error_msg_and_die(CT_EXIT_NO_PID, "process %d exited before it could "
					  "be attached", (int) o->pids[i]);
		if (o->follow_forks)
			attach_children(s, o->pids[i]);
	}
	if (s->probes)
		attach_probes(s);
}

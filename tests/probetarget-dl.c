/* Loaded by probetarget on command: a progress point in a library that
 * was not there when the probes were first resolved.  dl_step() is
 * static: in unit-probe's split-debug case, where the library's symbol
 * table is stripped and its debug info is in a separate file found
 * through its .gnu_debuglink, only that file knows it and its line. */
#if defined(__has_attribute) && __has_attribute(noclone)
# define PROBED __attribute__((noinline, noclone, used))
#else
# define PROBED __attribute__((noinline, used))
#endif

static volatile unsigned long dl_sink;

void dl_work(void);

static PROBED void
dl_step(void)
{
	dl_sink += 19;			/* PROBE:dl-step */
}

__attribute__((noinline)) void
dl_work(void)
{
	dl_step();
}

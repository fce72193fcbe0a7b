/* Loaded by probetarget on command: a progress point in a library that
 * was not there when the probes were first resolved. */
static volatile unsigned long dl_sink;

void dl_work(void);

__attribute__((noinline)) void
dl_work(void)
{
	dl_sink += 19;
}

/* The second static twin() of probetarget: "twin" names two functions. */
extern volatile unsigned long sink;

void twin_a(void);

static __attribute__((noinline, used)) void
twin(void)
{
	sink += 17;
}

void
twin_a(void)
{
	twin();
}

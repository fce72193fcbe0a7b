/*
 * Unit test of src/perf/wake.c.  Offline: wake_parse on synthetic records
 * allocated to their exact size (AddressSanitizer catches any read past
 * them): whole, truncated at every length, lying raw sizes, huge sizes
 * and offsets; wake_parse_format on a copy of the real format file, on
 * every prefix of it and on broken variants; loopback transmit records
 * (net:netif_rx) told from wake-ups by their common_type, and the rule
 * that makes a softirq wake-up its loopback sender's own.
 *
 * Live (exit 77 if wake_open fails, saying why): threads of this process
 * wake each other through a pipe, a futex and a condition variable, and
 * the events must name them with irq clear, and so through a loopback TCP
 * connection (woken in the writer's softirq) when net:netif_rx can be
 * watched; a thread sleeping in
 * clock_nanosleep while another spins on its CPU must be woken with irq
 * set (the timer interrupt, landing on the spinner or whatever runs
 * there).  Each case joins its threads before draining, so every wake-up
 * it caused is in the rings; events from other processes are ignored, and
 * so are wake-ups outside the blocking calls (thread start and exit take
 * locks too).  A case whose expected record is absent is run again, up to
 * 3 times: the kernel may drop one (ring full, or silently: at times up to
 * 1 in 500 timer wake-ups under load, a hardirq landing on a task in a
 * migrate-disabled section); a record with a wrong flag or waker fails at
 * once.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/procfs.h"
#include "perf/wake.h"
#include "unit.h"

/* tracefs events/sched/sched_waking/format, Linux 6.18 (x86_64). */
static const char real_format[] =
	"name: sched_waking\n"
	"ID: 375\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "
	"REC->pid, REC->prio, REC->target_cpu\n";

/* tracefs events/sched/sched_switch/format, Linux 6.18 (x86_64), print fmt cut. */
static const char switch_format[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", ...\n";

#define SWITCH_TYPE 372
#define SWITCH_RAW_SIZE 64

#define WAKING_TYPE 375	/* the ID above */
#define XMIT_TYPE 1598		/* some other event's */

static const struct wake_format real_fmt = {
	.type_off = 0, .flags_off = 2, .pid_off = 24,
	.waking_type = WAKING_TYPE, .xmit_type = XMIT_TYPE,
	.switch_type = SWITCH_TYPE, .prev_state_off = 32, .prev_state_size = 8,
	.next_pid_off = 56,
};

#define RAW_SIZE 36	/* sched_waking's fields, as in the format above */

static void *
xalloc_exact(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		perror("malloc");
		exit(99);
	}
	return p;
}

/*
 * A sample record as the kernel writes it: header, pid, tid, time, raw
 * size, raw data (raw_len bytes written, raw_claim claimed), padded to 8;
 * the raw data starts with common_type.  In a buffer of exactly the
 * record's size; *len gets that size.
 */
static unsigned char *
make_typed_record(uint16_t type, uint32_t pid, uint32_t tid, uint64_t time, uint8_t flags,
		  int32_t wakee, uint32_t raw_len, uint32_t raw_claim, size_t *len)
{
	size_t size = (sizeof(struct perf_event_header) + 20 + raw_len + 7) & ~(size_t) 7;
	unsigned char *rec = xalloc_exact(size);
	struct perf_event_header hdr = {
		.type = PERF_RECORD_SAMPLE, .misc = 0, .size = (uint16_t) size,
	};
	unsigned char *raw = rec + sizeof(hdr) + 20;

	memset(rec, 0xa5, size);
	memcpy(rec, &hdr, sizeof(hdr));
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, &time, 8);
	memcpy(rec + 24, &raw_claim, 4);
	memset(raw, 0, raw_len);
	if (raw_len >= 2)
		memcpy(raw, &type, 2);
	if (raw_len >= 3)
		raw[2] = flags;
	if (raw_len >= 28)
		memcpy(raw + 24, &wakee, 4);
	*len = size;
	return rec;
}

/* A sched_waking record. */
static unsigned char *
make_record(uint32_t pid, uint32_t tid, uint64_t time, uint8_t flags,
	    int32_t wakee, uint32_t raw_len, uint32_t raw_claim, size_t *len)
{
	return make_typed_record(WAKING_TYPE, pid, tid, time, flags, wakee, raw_len,
				 raw_claim, len);
}

/* A sched_switch record, raw_len bytes of its raw data written. */
static unsigned char *
make_switch_record(uint32_t pid, uint32_t tid, uint64_t time, uint64_t prev_state,
		   int32_t next, uint32_t raw_len, size_t *len)
{
	unsigned char *rec = make_typed_record(SWITCH_TYPE, pid, tid, time, 0, 0, raw_len,
					       raw_len, len);
	unsigned char *raw = rec + sizeof(struct perf_event_header) + 20;

	if (raw_len >= 28)
		memcpy(raw + 24, &tid, 4);	/* prev_pid */
	if (raw_len >= 40)
		memcpy(raw + 32, &prev_state, 8);
	if (raw_len >= 60)
		memcpy(raw + 56, &next, 4);
	return rec;
}

/*
 * Context switches: who left, who came (0: idle), whether the one that
 * left stays ready to run; truncated records refused.
 */
static void
test_parse_switch(void)
{
	static const struct {
		uint64_t state;
		bool ready;
	} cases[] = {
		{ 0x000, true },	/* R: yielded, still runnable */
		{ 0x100, true },	/* R+: preempted */
		{ 0x001, false },	/* S */
		{ 0x002, false },	/* D */
		{ 0x008, false },	/* t: a ptrace stop */
		{ 0x080, false },	/* I */
		{ 0x101, false },
		{ 0xffffffffffffff00ULL, true },	/* high bits: not reasons */
	};
	struct wake_format f = real_fmt;
	struct wake_event ev;
	unsigned wrong = 0;
	size_t len;
	unsigned char *rec;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rec = make_switch_record(70, 71, 999, cases[i].state, 72, SWITCH_RAW_SIZE, &len);
		CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_SWITCH &&
		      ev.sw && ev.waker_pid == 70 && ev.waker_tid == 71 && ev.wakee == 72 &&
		      ev.time == 999 && ev.prev_ready == cases[i].ready && !ev.irq,
		      "switch with prev_state %#" PRIx64 ": ready %d, wakee %d",
		      cases[i].state, ev.prev_ready, (int) ev.wakee);
		free(rec);
	}
	/* To the idle task: delivered, with no one taking the CPU. */
	rec = make_switch_record(70, 71, 999, 1, 0, SWITCH_RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_SWITCH && !ev.wakee,
	      "switch to idle");
	free(rec);
	rec = make_switch_record(70, 71, 999, 1, -3, SWITCH_RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD,
	      "switch to pid -3 accepted");
	free(rec);
	/* Cut anywhere before next_pid's end: refused (ASan sees any overread). */
	for (uint32_t raw = 0; raw < 60; raw++) {
		rec = make_switch_record(70, 71, 999, 0, 72, raw, &len);
		if (wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_SWITCH)
			wrong++;
		free(rec);
	}
	CHECK(wrong == 0, "%u truncated switch records accepted", wrong);
	/* A 4-byte prev_state (32-bit kernels' long). */
	f.prev_state_size = 4;
	rec = make_switch_record(70, 71, 999, 0x100, 72, SWITCH_RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_SWITCH && ev.prev_ready,
	      "4-byte prev_state");
	/* A size the parser would not have accepted. */
	f.prev_state_size = 2;
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD, "2-byte prev_state");
	/* Not watched: its type is nobody's. */
	f = real_fmt;
	f.switch_type = 0;
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD,
	      "switch record parsed while not watched");
	f = real_fmt;
	f.next_pid_off = UINT_MAX - 2;
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD,
	      "next_pid offset near UINT_MAX");
	free(rec);

	/* The format file. */
	memset(&f, 0, sizeof(f));
	CHECK(wake_parse_switch_format(switch_format, &f) && f.prev_state_off == 32 &&
	      f.prev_state_size == 8 && f.next_pid_off == 56,
	      "real switch format: state at %u (%u bytes), next_pid at %u",
	      f.prev_state_off, f.prev_state_size, f.next_pid_off);
	CHECK(!wake_parse_switch_format("", &f), "empty switch format");
	{
		char *t = strdup(switch_format);

		CHECK(t != NULL, "strdup");
		memcpy(strstr(t, "next_pid;"), "next_pix;", 9);
		CHECK(!wake_parse_switch_format(t, &f), "switch format without next_pid");
		free(t);
		t = strdup(switch_format);
		memcpy(strstr(t, "offset:32;\tsize:8;"), "offset:32;\tsize:2;", 18);
		CHECK(!wake_parse_switch_format(t, &f), "prev_state of 2 bytes");
		free(t);
	}
	check(true, "wake_parse: context switches, their format");
}

static void
test_parse_good(void)
{
	static const struct {
		uint8_t flags;
		bool irq, softirq;
	} cases[] = {
		{ 0x00, false, false },
		{ 0x01, false, false },	/* irqs off: ttwu holds pi_lock irqsave */
		{ 0x02, false, false },	/* need-resched-lazy (was irqs-nosupport) */
		{ 0x04, false, false },	/* need-resched */
		{ 0x20, false, false },	/* preempt-resched */
		{ 0x80, false, false },	/* bottom halves disabled, not in one */
		{ 0x08, true, false },	/* hardirq */
		{ 0x10, true, true },	/* softirq */
		{ 0x11, true, true },	/* softirq, irqs off: loopback's, seen */
		{ 0x40, true, false },	/* NMI */
		{ 0x18, true, false },	/* a hardirq inside a softirq */
		{ 0x50, true, false },
		{ 0xff, true, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		unsigned char *rec = make_record(100, 101, 123456789012345ULL,
						 cases[i].flags, 4242, RAW_SIZE,
						 RAW_SIZE, &len);
		struct wake_event ev;
		bool ok = wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_WAKING;

		CHECK(len == 64, "record size %zu, want 64", len);
		CHECK(ok, "flags %#x: rejected", cases[i].flags);
		CHECK(ev.waker_pid == 100 && ev.waker_tid == 101 && ev.wakee == 4242 &&
		      ev.time == 123456789012345ULL,
		      "flags %#x: decoded %d/%d -> %d at %" PRIu64, cases[i].flags,
		      (int) ev.waker_pid, (int) ev.waker_tid, (int) ev.wakee, ev.time);
		CHECK(ev.irq == cases[i].irq && ev.softirq == cases[i].softirq,
		      "flags %#x: irq %d softirq %d, want %d %d", cases[i].flags, ev.irq,
		      ev.softirq, cases[i].irq, cases[i].softirq);
		free(rec);
	}
	check(true, "wake_parse: good records, irq from common_flags");
}

/* Every prefix of a good record, as a record of that size: all refused. */
static void
test_parse_truncated(void)
{
	size_t len;
	unsigned char *rec = make_record(1, 2, 3, 0x08, 77, RAW_SIZE, RAW_SIZE, &len);
	unsigned accepted = 0;

	for (size_t cut = 0; cut < len; cut++) {
		/* The header's size field must exist to be read at all. */
		size_t alloc = cut < sizeof(struct perf_event_header) ?
			       sizeof(struct perf_event_header) : cut;
		unsigned char *t = xalloc_exact(alloc);
		struct perf_event_header hdr;
		struct wake_event ev;

		memset(t, 0x5a, alloc);
		memcpy(t, rec, cut);
		memcpy(&hdr, rec, sizeof(hdr));
		hdr.size = (uint16_t) cut;
		memcpy(t, &hdr, sizeof(hdr));
		if (wake_parse((const void *) t, &real_fmt, &ev) != WAKE_REC_BAD) {
			accepted++;
			fprintf(stderr, "truncated to %zu bytes: accepted\n", cut);
		}
		free(t);
	}
	CHECK(accepted == 0, "%u truncated records accepted", accepted);
	free(rec);
	check(accepted == 0, "wake_parse: record truncated at every length refused");
}

static bool
parse_one(uint32_t raw_len, uint32_t raw_claim, const struct wake_format *fmt)
{
	size_t len;
	unsigned char *rec = make_record(1, 2, 3, 0, 99, raw_len, raw_claim, &len);
	struct wake_event ev;
	bool ok = wake_parse((const void *) rec, fmt, &ev) == WAKE_REC_WAKING;

	free(rec);
	return ok;
}

static void
test_parse_lies(void)
{
	struct wake_format f;
	size_t len;
	unsigned char *rec;
	struct wake_event ev;
	bool ok;

	/* Raw size claiming more than the record holds. */
	CHECK(!parse_one(RAW_SIZE, RAW_SIZE + 1 + 4, &real_fmt),
	      "raw size past the record");
	CHECK(!parse_one(RAW_SIZE, 0xffffffffu, &real_fmt), "raw size 4 GiB");
	CHECK(!parse_one(RAW_SIZE, 0x80000000u, &real_fmt), "raw size 2 GiB");
	/* Honest but too short for the fields: pid needs bytes 24..27. */
	CHECK(!parse_one(RAW_SIZE, 27, &real_fmt), "raw size 27");
	CHECK(!parse_one(RAW_SIZE, 0, &real_fmt), "raw size 0");
	CHECK(!parse_one(2, 2, &real_fmt), "raw of 2 bytes");
	CHECK(parse_one(RAW_SIZE, 28, &real_fmt), "raw size 28 is enough");
	CHECK(parse_one(28, 28, &real_fmt), "raw of 28 bytes is enough");
	/* Raw data up to the record's very end is fine. */
	CHECK(parse_one(RAW_SIZE + 4, RAW_SIZE + 8, &real_fmt), "raw size to the end");
	CHECK(!parse_one(RAW_SIZE + 4, RAW_SIZE + 9, &real_fmt), "raw size 1 past the end");

	/* Offsets past the raw data, and ones that overflow when added. */
	f = real_fmt;
	f.pid_off = RAW_SIZE - 3;
	CHECK(!parse_one(RAW_SIZE, RAW_SIZE, &f), "pid straddling the end");
	f.pid_off = UINT_MAX - 1;
	CHECK(!parse_one(RAW_SIZE, RAW_SIZE, &f), "pid offset near UINT_MAX");
	f = real_fmt;
	f.flags_off = RAW_SIZE;
	CHECK(!parse_one(RAW_SIZE, RAW_SIZE, &f), "flags just past the end");
	f.flags_off = UINT_MAX;
	CHECK(!parse_one(RAW_SIZE, RAW_SIZE, &f), "flags offset UINT_MAX");

	/* Not a sample, and a wakee that cannot be. */
	rec = make_record(1, 2, 3, 0, 99, RAW_SIZE, RAW_SIZE, &len);
	((struct perf_event_header *) (void *) rec)->type = PERF_RECORD_LOST;
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD, "LOST record parsed");
	free(rec);
	rec = make_record(1, 2, 3, 0, -5, RAW_SIZE, RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD, "wakee -5 accepted");
	free(rec);
	rec = make_record(1, 2, 3, 0, 0, RAW_SIZE, RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD, "wakee 0 accepted");
	free(rec);

	/* The largest record a header can describe, honest: accepted. */
	rec = make_record(7, 8, 9, 0x10, 31337, 65535 - 8 - 20 - 7, 65535 - 8 - 20 - 7, &len);
	CHECK(len <= 65535, "huge record of %zu bytes", len);
	ok = wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_WAKING;
	CHECK(ok && ev.wakee == 31337 && ev.irq, "huge honest record: %d", ok);
	/* And lying by one byte past its end. */
	memcpy(rec + 24, &(uint32_t) { (uint32_t) (len - 28 + 1) }, 4);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD, "huge lying record");
	free(rec);
	check(true, "wake_parse: lying and huge sizes, bad offsets");
}

/*
 * net:netif_rx records (common fields, skbaddr, len, name's __data_loc:
 * 24 bytes, then the name) are told from wake-ups by their common_type,
 * and give the sender and the time; any other type is refused.
 */
static void
test_parse_xmit(void)
{
	struct wake_format f = real_fmt;
	struct wake_event ev;
	size_t len;
	unsigned char *rec = make_typed_record(XMIT_TYPE, 300, 301, 5555, 0x11, 0, 28, 28, &len);

	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_XMIT &&
	      ev.waker_pid == 300 && ev.waker_tid == 301 && ev.time == 5555 && !ev.wakee,
	      "netif_rx record: %d/%d at %" PRIu64, (int) ev.waker_pid, (int) ev.waker_tid,
	      ev.time);
	/* Not watched: its type is nobody's. */
	f.xmit_type = 0;
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD,
	      "netif_rx record parsed while not watched");
	free(rec);
	/* A type of 0 is not "not watched"'s 0. */
	rec = make_typed_record(0, 1, 2, 3, 0, 99, RAW_SIZE, RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD, "type 0 accepted");
	free(rec);
	/* Some other event: neither. */
	rec = make_typed_record(WAKING_TYPE + 1, 1, 2, 3, 0, 99, RAW_SIZE, RAW_SIZE, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD,
	      "unknown type accepted");
	free(rec);
	/* common_type needs its two bytes, past a lying offset too. */
	rec = make_typed_record(XMIT_TYPE, 1, 2, 3, 0, 0, 8, 1, &len);
	CHECK(wake_parse((const void *) rec, &real_fmt, &ev) == WAKE_REC_BAD,
	      "raw of 1 byte accepted");
	free(rec);
	f = real_fmt;
	f.type_off = UINT_MAX - 1;
	rec = make_typed_record(XMIT_TYPE, 1, 2, 3, 0, 0, 28, 28, &len);
	CHECK(wake_parse((const void *) rec, &f, &ev) == WAKE_REC_BAD,
	      "type offset near UINT_MAX");
	free(rec);
	check(true, "wake_parse: loopback transmits told from wake-ups by type");
}

/* The rule: a softirq wake-up by the CPU's last loopback sender, soon after. */
static void
test_loopback(void)
{
	static const struct {
		pid_t xmit_tid;
		uint64_t xmit_time;
		pid_t waker;
		uint64_t time;
		uint8_t flags;
		bool own;
		const char *what;
	} cases[] = {
		{ 10, 1000000, 10, 1002000, 0x11, true, "2 us after its own send" },
		{ 10, 1000000, 10, 1000000 + WAKE_LOOPBACK_NS, 0x10, true, "at the bound" },
		{ 10, 1000000, 10, 1000001 + WAKE_LOOPBACK_NS, 0x10, false, "past the bound" },
		{ 10, 1000000, 11, 1002000, 0x11, false, "another task's send" },
		{ 0, 0, 10, 1002000, 0x11, false, "no send seen" },
		{ 0, 1000000, 0, 1002000, 0x11, false, "on the idle task" },
		{ 10, 1000000, 10, 999999, 0x11, false, "before the send" },
		{ 10, 1000000, 10, 1002000, 0x09, false, "a hardirq" },
		{ 10, 1000000, 10, 1002000, 0x18, false, "a hardirq in a softirq" },
		{ 10, 1000000, 10, 1002000, 0x50, false, "an NMI" },
		{ 10, 1000000, 10, 1002000, 0x01, false, "a task wake-up (irq already clear)" },
	};
	unsigned wrong = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wake_xmit x = { cases[i].xmit_tid, cases[i].xmit_time };
		size_t len;
		unsigned char *rec = make_record(1, (uint32_t) cases[i].waker, cases[i].time,
						 cases[i].flags, 77, RAW_SIZE, RAW_SIZE, &len);
		struct wake_event ev;
		bool irq_before, own;

		if (wake_parse((const void *) rec, &real_fmt, &ev) != WAKE_REC_WAKING) {
			fprintf(stderr, "test bug: %s not parsed\n", cases[i].what);
			exit(99);
		}
		irq_before = ev.irq;
		own = wake_loopback(&x, &ev);
		if (own != cases[i].own || ev.irq != (own ? false : irq_before)) {
			wrong++;
			fprintf(stderr, "loopback: %s: own %d irq %d\n", cases[i].what, own, ev.irq);
		}
		free(rec);
	}
	check(wrong == 0, "wake_loopback: own sends within %llu us, and nothing else",
	      (unsigned long long) (WAKE_LOOPBACK_NS / 1000));
}

static bool
parse_fmt_text(const char *text, struct wake_format *f)
{
	/* Exact size, NUL included. */
	size_t n = strlen(text) + 1;
	char *copy = xalloc_exact(n);
	bool ok;

	memcpy(copy, text, n);
	ok = wake_parse_format(copy, f);
	free(copy);
	return ok;
}

/* real_format with the first occurrence of from replaced by to. */
static bool
parse_fmt_edited(const char *from, const char *to, struct wake_format *f)
{
	const char *at = strstr(real_format, from);
	char buf[2048];

	if (!at) {
		fprintf(stderr, "test bug: %s not in the format\n", from);
		exit(99);
	}
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int) (at - real_format), real_format,
		 to, at + strlen(from));
	return parse_fmt_text(buf, f);
}

static void
test_parse_format(void)
{
	struct wake_format f;
	size_t need, n = strlen(real_format);
	unsigned wrong = 0;

	CHECK(parse_fmt_text(real_format, &f), "real format refused");
	CHECK(f.type_off == 0 && f.flags_off == 2 && f.pid_off == 24,
	      "real format: type at %u, flags at %u, pid at %u", f.type_off, f.flags_off,
	      f.pid_off);

	/* Every prefix: accepted exactly once pid's size is complete. */
	need = (size_t) (strstr(strstr(real_format, "pid_t pid;"), "size:4;") -
			 real_format) + strlen("size:4;");
	for (size_t cut = 0; cut <= n; cut++) {
		char *t = xalloc_exact(cut + 1);
		bool ok;

		memcpy(t, real_format, cut);
		t[cut] = '\0';
		ok = wake_parse_format(t, &f);
		if (ok != (cut >= need) || (ok && (f.flags_off != 2 || f.pid_off != 24))) {
			wrong++;
			fprintf(stderr, "format cut at %zu/%zu: %d\n", cut, n, ok);
		}
		free(t);
	}
	CHECK(wrong == 0, "%u prefixes of the format misparsed", wrong);

	CHECK(!parse_fmt_text("", &f), "empty text");
	CHECK(!parse_fmt_text("garbage\n\n;;;field:\n", &f), "garbage");
	/* Missing fields; common_pid is not pid. */
	CHECK(!parse_fmt_edited("pid_t pid;", "pid_t wakee;", &f), "no pid");
	CHECK(!parse_fmt_edited("char common_flags;", "char common_flagz;", &f),
	      "no common_flags");
	CHECK(!parse_fmt_edited("short common_type;", "short common_typo;", &f),
	      "no common_type");
	CHECK(!parse_fmt_edited("offset:0;\tsize:2;", "offset:0;\tsize:4;", &f),
	      "common_type of 4 bytes");
	/* Sizes other than expected. */
	CHECK(!parse_fmt_edited("offset:24;\tsize:4;", "offset:24;\tsize:8;", &f),
	      "pid of 8 bytes");
	CHECK(!parse_fmt_edited("offset:2;\tsize:1;", "offset:2;\tsize:2;", &f),
	      "common_flags of 2 bytes");
	/* Numbers that are not, or absurd. */
	CHECK(!parse_fmt_edited("offset:24;", "offset:x24;", &f), "offset not a number");
	CHECK(!parse_fmt_edited("offset:24;", "offset:-24;", &f), "negative offset");
	CHECK(!parse_fmt_edited("offset:24;", "offset:99999999999999999999999;", &f),
	      "offset overflowing");
	CHECK(!parse_fmt_edited("offset:24;", "offset:4294967320;", &f),
	      "offset past 32 bits");
	CHECK(!parse_fmt_edited("offset:24;\tsize:4;", "offset:24;", &f),
	      "pid without size");
	CHECK(!parse_fmt_edited("offset:24;\tsize:4;", "offset:24;\tsize:4", &f),
	      "pid size unterminated");
	CHECK(!parse_fmt_edited("pid_t pid;\toffset", "pid_t pid\toffset", &f),
	      "pid declaration unterminated");
	/* Twice: ambiguous. */
	CHECK(!parse_fmt_edited("\tfield:int prio;", "\tfield:pid_t pid;", &f),
	      "pid twice");
	/* Moved, and with spaces instead of tabs: still found. */
	CHECK(parse_fmt_edited("offset:24;\tsize:4;", "offset:28;   size:4;", &f) &&
	      f.pid_off == 28, "pid moved to 28 with spaces: %u", f.pid_off);
	CHECK(parse_fmt_edited("char comm[16];", "char comm [16];", &f) &&
	      f.pid_off == 24, "odd comm spacing");
	check(wrong == 0, "wake_parse_format: real text, every prefix, broken variants");
}

/* ---- live ---- */

struct seen {
	struct wake_event *ev;
	size_t n, alloc;
	struct wake_event *sw;	/* context switches, apart */
	size_t nsw, allocsw;
};

static void
push(struct wake_event **v, size_t *n, size_t *alloc, const struct wake_event *ev)
{
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 1024;
		*v = realloc(*v, *alloc * sizeof(**v));
		if (!*v) {
			perror("realloc");
			exit(99);
		}
	}
	(*v)[(*n)++] = *ev;
}

/* Called from wake_drain, on the main thread only. */
static void
on_wake(void *ctx, const struct wake_event *ev)
{
	struct seen *s = ctx;

	if (ev->sw)
		push(&s->sw, &s->nsw, &s->allocsw, ev);
	else
		push(&s->ev, &s->n, &s->alloc, ev);
}

static pid_t
gettid_(void)
{
	return (pid_t) syscall(SYS_gettid);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Wait until tid is asleep (S) in the kernel; 30 s at most. */
static bool
wait_sleeping(pid_t tid)
{
	for (int i = 0; i < 300000; i++) {
		if (procfs_state(tid) == 'S')
			return true;
		usleep(100);
	}
	return false;
}

static pid_t
wait_tid(pid_t *slot)
{
	pid_t t;

	while (!(t = __atomic_load_n(slot, __ATOMIC_ACQUIRE)))
		sched_yield();
	return t;
}

/*
 * A blocking call as its thread saw it.  Only wake-ups inside one are
 * judged: a thread can also be woken elsewhere, legitimately (the
 * sanitizers' internal locks at thread start, glibc's start lock of a
 * thread created with an affinity).
 */
struct window {
	uint64_t begin, end;
};

struct tally {
	unsigned task, irq;		/* wake-ups inside the windows */
	unsigned task_by_waker, irq_by_waker, irq_on_idle;
	unsigned outside;		/* outside the windows: not judged */
	unsigned off_clock;		/* outside the case's whole lifetime */
	unsigned wrong_tgid;		/* waker's pid is not ours */
	unsigned per_window_irq[8];
};

static struct tally
tally(const struct seen *s, size_t from, pid_t waker, pid_t wakee,
      const struct window *win, size_t nwin, uint64_t t0, uint64_t t1)
{
	struct tally t;

	memset(&t, 0, sizeof(t));
	for (size_t i = from; i < s->n; i++) {
		const struct wake_event *e = &s->ev[i];
		size_t w;

		if (e->wakee != wakee)
			continue;
		/* Perf's CLOCK_MONOTONIC must be clock_gettime's. */
		if (e->time < t0 || e->time > t1) {
			t.off_clock++;
			continue;
		}
		for (w = 0; w < nwin; w++)
			if (e->time >= win[w].begin && e->time <= win[w].end)
				break;
		if (w == nwin) {
			t.outside++;
			continue;
		}
		if (e->irq) {
			t.irq++;
			if (w < sizeof(t.per_window_irq) / sizeof(t.per_window_irq[0]))
				t.per_window_irq[w]++;
			if (e->waker_tid == waker)
				t.irq_by_waker++;
			else if (e->waker_tid == 0)
				t.irq_on_idle++;
		} else {
			t.task++;
			if (e->waker_tid == waker) {
				t.task_by_waker++;
				if (e->waker_pid != getpid())
					t.wrong_tgid++;
			}
		}
	}
	return t;
}

enum pair_kind { PAIR_PIPE, PAIR_FUTEX, PAIR_CONDVAR, PAIR_TCP };

static const char *const pair_name[] = { "pipe", "futex", "condvar", "loopback TCP" };

struct pair {
	enum pair_kind kind;
	int pipe[2];
	int tcp[2];		/* the wakee's end, the waker's */
	uint32_t futex;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	bool flag;
	pid_t waker, wakee;
	struct window win;
};

static void *
wakee_main(void *arg)
{
	struct pair *p = arg;
	char c;

	__atomic_store_n(&p->wakee, gettid_(), __ATOMIC_RELEASE);
	p->win.begin = now_ns();
	switch (p->kind) {
	case PAIR_PIPE:
		while (read(p->pipe[0], &c, 1) < 0 && errno == EINTR)
			;
		break;
	case PAIR_TCP:
		while (read(p->tcp[0], &c, 1) < 0 && errno == EINTR)
			;
		break;
	case PAIR_FUTEX:
		while (!__atomic_load_n(&p->futex, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &p->futex, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		break;
	case PAIR_CONDVAR:
		pthread_mutex_lock(&p->mutex);
		while (!p->flag)
			pthread_cond_wait(&p->cond, &p->mutex);
		pthread_mutex_unlock(&p->mutex);
		break;
	}
	p->win.end = now_ns();
	return NULL;
}

static void *
waker_main(void *arg)
{
	struct pair *p = arg;
	pid_t wakee = wait_tid(&p->wakee);

	__atomic_store_n(&p->waker, gettid_(), __ATOMIC_RELEASE);
	/*
	 * Only a sleeper is woken.  Between publishing its tid and blocking
	 * the wakee cannot sleep anywhere else, so S means it is blocked.
	 */
	if (!wait_sleeping(wakee))
		fprintf(stderr, "thread %d never slept\n", (int) wakee);
	switch (p->kind) {
	case PAIR_PIPE:
		if (write(p->pipe[1], "x", 1) != 1)
			perror("write");
		break;
	case PAIR_TCP:
		if (write(p->tcp[1], "x", 1) != 1)
			perror("write");
		break;
	case PAIR_FUTEX:
		__atomic_store_n(&p->futex, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &p->futex, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		break;
	case PAIR_CONDVAR:
		pthread_mutex_lock(&p->mutex);
		p->flag = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->mutex);
		break;
	}
	return NULL;
}

/* A connected loopback TCP pair: fd[0] accepted, fd[1] connected. */
static void
tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || fd[1] < 0 || bind(l, (struct sockaddr *) &a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *) &a, &alen) ||
	    connect(fd[1], (struct sockaddr *) &a, sizeof(a)) ||
	    (fd[0] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		perror("loopback TCP");
		exit(99);
	}
	setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

/*
 * A thread wakes another: the event names both, without irq.  Through
 * loopback TCP the wake-up comes from the writer's softirq; one run by
 * ksoftirqd instead (the kernel defers softirqs under load) is not the
 * writer's and not ours to judge: only the writer's must be task ones.
 */
static bool
live_pair(struct wake *w, struct seen *s, enum pair_kind kind, bool last_try)
{
	struct pair p;
	pthread_t a, b;
	uint64_t t0, t1, lost0;
	size_t from;
	struct tally t;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	if (pipe(p.pipe) < 0) {
		perror("pipe");
		exit(99);
	}
	if (kind == PAIR_TCP)
		tcp_pair(p.tcp);
	pthread_mutex_init(&p.mutex, NULL);
	pthread_cond_init(&p.cond, NULL);
	wake_drain(w);
	from = s->n;
	lost0 = wake_stats(w)->lost;
	t0 = now_ns();
	if (pthread_create(&b, NULL, wakee_main, &p) ||
	    pthread_create(&a, NULL, waker_main, &p)) {
		perror("pthread_create");
		exit(99);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	t1 = now_ns();
	/* Both joined: every wake-up they caused is in the rings. */
	wake_drain(w);
	t = tally(s, from, p.waker, p.wakee, &p.win, 1, t0, t1);
	close(p.pipe[0]);
	close(p.pipe[1]);
	if (kind == PAIR_TCP) {
		close(p.tcp[0]);
		close(p.tcp[1]);
	}
	pthread_mutex_destroy(&p.mutex);
	pthread_cond_destroy(&p.cond);
	/*
	 * Absent (not wrong): lost in a full ring, or dropped by the kernel
	 * without a word (at times up to 1 in 500 timer wake-ups).
	 */
	if (!t.task_by_waker && (kind == PAIR_TCP ? !t.irq_by_waker : !t.irq) && !last_try) {
		printf("# %s: no event (%" PRIu64 " lost), trying again\n",
		       pair_name[kind], wake_stats(w)->lost - lost0);
		return false;
	}
	if (kind == PAIR_TCP) {
		check(t.task_by_waker >= 1 && t.task == t.task_by_waker && t.irq_by_waker == 0 &&
		      t.off_clock == 0 && t.wrong_tgid == 0,
		      "live %s: %d woke %d: %u wake-up(s) by the writer, %u task ones by "
		      "others, %u with irq by the writer, %u with irq by others (ksoftirqd), "
		      "%u with a wrong tgid, %u off the clock (%u outside the blocking call)",
		      pair_name[kind], (int) p.waker, (int) p.wakee, t.task_by_waker,
		      t.task - t.task_by_waker, t.irq_by_waker, t.irq - t.irq_by_waker,
		      t.wrong_tgid, t.off_clock, t.outside);
		return true;
	}
	check(t.task_by_waker >= 1 && t.task == t.task_by_waker && t.irq == 0 &&
	      t.off_clock == 0 && t.wrong_tgid == 0,
	      "live %s: %d woke %d: %u wake-up(s) by the waker, %u by others, "
	      "%u with irq, %u with a wrong tgid, %u off the clock "
	      "(%u outside the blocking call)", pair_name[kind], (int) p.waker,
	      (int) p.wakee, t.task_by_waker, t.task - t.task_by_waker, t.irq,
	      t.wrong_tgid, t.off_clock, t.outside);
	return true;
}

#define TIMER_SLEEPS 5

struct timer_case {
	pid_t sleeper, spinner;
	int spinning, stop;
	struct window win[TIMER_SLEEPS];
};

static void *
spinner_main(void *arg)
{
	struct timer_case *t = arg;

	__atomic_store_n(&t->spinner, gettid_(), __ATOMIC_RELEASE);
	__atomic_store_n(&t->spinning, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

static void *
sleeper_main(void *arg)
{
	struct timer_case *t = arg;

	__atomic_store_n(&t->sleeper, gettid_(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&t->spinning, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; i < TIMER_SLEEPS; i++) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		t->win[i].begin = now_ns();
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		t->win[i].end = now_ns();
	}
	return NULL;
}

/*
 * The same case's context switches, both threads pinned to CPU 0, from
 * the first sleep to the last: the sleeper leaves the CPU blocked at
 * each sleep and comes back, and the spinner is preempted, still ready,
 * at least once; none of theirs elsewhere.  False: records missing, try
 * again.
 */
static bool
live_timer_switches(const struct seen *s, size_t from, const struct timer_case *tc,
		    bool last_try)
{
	unsigned out_blocked = 0, in = 0, spinner_ready = 0, elsewhere = 0;

	for (size_t i = from; i < s->nsw; i++) {
		const struct wake_event *e = &s->sw[i];
		bool ours = e->waker_tid == tc->sleeper || e->waker_tid == tc->spinner;

		if (!ours && e->wakee != tc->sleeper && e->wakee != tc->spinner)
			continue;
		/*
		 * From the first sleep to the last: a thread created with an
		 * affinity may start elsewhere, before glibc applies it.
		 */
		if (e->time < tc->win[0].begin || e->time > tc->win[TIMER_SLEEPS - 1].end)
			continue;
		if (e->cpu != 0) {
			elsewhere++;
			continue;
		}
		if (e->waker_tid == tc->sleeper && !e->prev_ready)
			out_blocked++;
		if (e->waker_tid == tc->spinner && e->prev_ready)
			spinner_ready++;
		if (e->wakee == tc->sleeper)
			in++;
	}
	if ((out_blocked < TIMER_SLEEPS || in < TIMER_SLEEPS || !spinner_ready) && !last_try &&
	    !elsewhere) {
		printf("# timer switches: %u blocked, %u in, %u spinner preempted: trying again\n",
		       out_blocked, in, spinner_ready);
		return false;
	}
	check(out_blocked >= TIMER_SLEEPS && in >= TIMER_SLEEPS && spinner_ready && !elsewhere,
	      "live switches: sleeper left CPU 0 blocked %u times (>= %d), came back %u, "
	      "spinner preempted ready %u; %u elsewhere",
	      out_blocked, TIMER_SLEEPS, in, spinner_ready, elsewhere);
	return true;
}

/*
 * A thread in clock_nanosleep beside a spinner on CPU 0: each sleep ends
 * with the timer interrupt's wake-up, on the spinner (or on whatever else
 * runs there, or idle), and it must say irq.
 */
static bool
live_timer(struct wake *w, struct seen *s, bool last_try)
{
	struct timer_case tc;
	pthread_attr_t attr;
	cpu_set_t cpu0;
	pthread_t c, d;
	uint64_t t0, t1, lost0;
	size_t from, from_sw;
	struct tally t;
	unsigned slept_unwoken = 0;

	memset(&tc, 0, sizeof(tc));
	/* Pinned from birth: no migration to muddle who runs where. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	pthread_attr_init(&attr);
	if (pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0)) {
		fprintf(stderr, "pthread_attr_setaffinity_np failed\n");
		exit(99);
	}
	wake_drain(w);
	from = s->n;
	from_sw = s->nsw;
	lost0 = wake_stats(w)->lost;
	t0 = now_ns();
	if (pthread_create(&d, &attr, spinner_main, &tc) ||
	    pthread_create(&c, &attr, sleeper_main, &tc)) {
		perror("pthread_create");
		exit(99);
	}
	pthread_join(c, NULL);
	__atomic_store_n(&tc.stop, 1, __ATOMIC_RELEASE);
	pthread_join(d, NULL);
	t1 = now_ns();
	pthread_attr_destroy(&attr);
	wake_drain(w);
	if (wake_stats(w)->switch_watched && !live_timer_switches(s, from_sw, &tc, last_try))
		return false;
	t = tally(s, from, tc.spinner, tc.sleeper, tc.win, TIMER_SLEEPS, t0, t1);
	for (int i = 0; i < TIMER_SLEEPS; i++)
		if (!t.per_window_irq[i])
			slept_unwoken++;
	/* As for the pairs: retry an absent record, never a wrong one. */
	if (slept_unwoken && !t.task && !last_try) {
		printf("# timer: %u sleep(s) without an event (%" PRIu64 " lost), "
		       "trying again\n", slept_unwoken, wake_stats(w)->lost - lost0);
		return false;
	}
	check(slept_unwoken == 0 && t.task == 0 && t.off_clock == 0,
	      "live timer: %d slept %d x 5 ms beside %d spinning on CPU 0: "
	      "%u irq wake-ups (%u on the spinner, %u on idle), %u sleeps without "
	      "one, %u without irq, %u off the clock (%u outside the sleeps)",
	      (int) tc.sleeper, TIMER_SLEEPS, (int) tc.spinner, t.irq,
	      t.irq_by_waker, t.irq_on_idle, slept_unwoken, t.task, t.off_clock,
	      t.outside);
	return true;
}

static unsigned
perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "perf_event"))
			n++;
	fclose(f);
	return n;
}

static int
test_live(void)
{
	struct seen s = { 0 };
	unsigned fds = procfs_self_fds(), maps = perf_maps();
	const char *why = "?";
	struct wake *w;
	int err = wake_open(&w, on_wake, &s, true, &why);

	if (err < 0) {
		printf("SKIP: live part: wake_open: %s (%s)\n", why ? why : "(no why)",
		       strerror(-err));
		CHECK(why != NULL, "wake_open failed without saying why");
		return 77;
	}
	CHECK(why == NULL, "wake_open succeeded with why %s", why);
	CHECK(procfs_self_fds() > fds, "no fds opened");
	for (int kind = PAIR_PIPE; kind <= PAIR_TCP; kind++) {
		if (kind == PAIR_TCP && !wake_stats(w)->xmit_watched) {
			printf("# loopback TCP: not checked, net:netif_rx is not watched\n");
			continue;
		}
		for (int try = 0; try < 3 && !live_pair(w, &s, kind, try == 2); try++)
			;
	}
	for (int try = 0; try < 3 && !live_timer(w, &s, try == 2); try++)
		;
	printf("# %" PRIu64 " events delivered, %" PRIu64 " lost, %" PRIu64 " bad\n",
	       wake_stats(w)->events, wake_stats(w)->lost, wake_stats(w)->bad);
	CHECK(wake_stats(w)->events == s.n, "stats say %" PRIu64 " events, %zu seen",
	      wake_stats(w)->events, s.n);
	CHECK(wake_stats(w)->switches == s.nsw, "stats say %" PRIu64 " switches, %zu seen",
	      wake_stats(w)->switches, s.nsw);
	CHECK(wake_stats(w)->bad == 0, "%" PRIu64 " bad records", wake_stats(w)->bad);
	wake_close(w);
	check(procfs_self_fds() == fds && perf_maps() == maps,
	      "wake_close: fds %u before, %u after; perf maps %u before, %u after",
	      fds, procfs_self_fds(), maps, perf_maps());
	free(s.ev);
	free(s.sw);
	return 0;
}

int
main(void)
{
	int live;

	alarm(120);
	test_parse_good();
	test_parse_truncated();
	test_parse_lies();
	test_parse_xmit();
	test_parse_switch();
	test_loopback();
	test_parse_format();
	live = test_live();
	if (failures) {
		fprintf(stderr, "unit-wake: %d check(s) failed\n", failures);
		return 1;
	}
	if (live == 77)
		return 77;
	printf("unit-wake: all checks passed\n");
	return 0;
}

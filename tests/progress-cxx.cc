/*
 * unit-progress-cxx: causaltop.h in C++ (C++11 and later): the macros in
 * a function, a member function, a lambda, a template and an inline
 * function, from 8 std::threads; C and C++ translation units share one
 * page (the state is extern "C").  Counts are read back through a second
 * mapping of the page found in /proc/self/fd, as the supervisor does.
 */
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "causaltop.h"

static const int K = 100000;
static const int NTHREADS = 8;

static void
fail(const char *what)
{
	std::fprintf(stderr, "unit-progress-cxx: %s\n", what);
	std::exit(1);
}

struct Worker {
	void step()
	{
		CAUSALTOP_PROGRESS_NAMED("member");
	}
};

template <int N>
static void
templated()
{
	CAUSALTOP_BEGIN("tmpl");
	CAUSALTOP_END("tmpl");
}

inline void
inlined()
{
	CAUSALTOP_PROGRESS;
}

static void
hit_all()
{
	Worker w;
	auto lambda = []() { CAUSALTOP_PROGRESS_NAMED("lambda"); };

	w.step();
	lambda();
	templated<1>();
	inlined();
}

static causaltop_page *
map_page()
{
	const char *want = "/memfd:" CAUSALTOP_MEMFD_NAME " (deleted)";
	char path[sizeof("/proc/self/fd/") + 256], target[256];
	causaltop_page *page = nullptr;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		fail("opendir /proc/self/fd");
	while ((de = readdir(d)) != nullptr) {
		ssize_t len;

		std::snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (std::strcmp(target, want) != 0)
			continue;
		if (page)
			fail("more than one progress page");
		int fd = open(path, O_RDWR | O_CLOEXEC);
		void *p = mmap(nullptr, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (fd < 0 || p == MAP_FAILED)
			fail("cannot map the page");
		close(fd);
		page = static_cast<causaltop_page *>(p);
	}
	closedir(d);
	if (!page)
		fail("no progress page");
	if (page->magic != CAUSALTOP_MAGIC || page->abi_version != CAUSALTOP_ABI_VERSION ||
	    page->nslots != CAUSALTOP_NSLOTS)
		fail("bad page header");
	return page;
}

static unsigned long long
count_of(causaltop_page *page, uint32_t kind, const char *name)
{
	unsigned long long sum = 0;

	for (uint32_t i = 0; i < page->used && i < page->nslots; i++) {
		char *p = reinterpret_cast<char *>(page) + page->slot_offset +
			i * page->slot_size;
		causaltop_slot *s = reinterpret_cast<causaltop_slot *>(p);

		if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) && s->kind == kind &&
		    std::strcmp(s->name, name) == 0)
			sum += __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	}
	return sum;
}

int
main()
{
	hit_all();
	causaltop_page *page = map_page();

	if (count_of(page, CAUSALTOP_KIND_THROUGHPUT, "member") != 0)
		fail("counted while disabled");
	__atomic_store_n(&page->enabled, 1, __ATOMIC_RELAXED);

	std::atomic<int> ready(0);
	std::vector<std::thread> threads;
	for (int t = 0; t < NTHREADS; t++)
		threads.emplace_back([&ready]() {
			ready++;
			while (ready.load() < NTHREADS)
				;
			for (int i = 0; i < K; i++)
				hit_all();
		});
	for (auto &t : threads)
		t.join();

	const unsigned long long want = static_cast<unsigned long long>(NTHREADS) * K;
	const struct {
		uint32_t kind;
		const char *name;
	} points[] = {
		{ CAUSALTOP_KIND_THROUGHPUT, "member" },
		{ CAUSALTOP_KIND_THROUGHPUT, "lambda" },
		{ CAUSALTOP_KIND_BEGIN, "tmpl" },
		{ CAUSALTOP_KIND_END, "tmpl" },
	};
	for (const auto &pt : points) {
		unsigned long long got = count_of(page, pt.kind, pt.name);

		if (got != want) {
			std::fprintf(stderr, "unit-progress-cxx: %s: %llu, expected %llu\n",
				     pt.name, got, want);
			return 1;
		}
	}
	/* The inline function's "FILE:LINE" point. */
	unsigned long long fileline = 0;
	for (uint32_t i = 0; i < page->used; i++) {
		char *p = reinterpret_cast<char *>(page) + page->slot_offset +
			i * page->slot_size;
		causaltop_slot *s = reinterpret_cast<causaltop_slot *>(p);

		if (std::strstr(s->name, "progress-cxx.cc:"))
			fileline += s->count;
	}
	if (fileline != want)
		fail("FILE:LINE point miscounted");
	std::printf("unit-progress-cxx: ok (C++%ld)\n", __cplusplus / 100 % 100);
	return 0;
}

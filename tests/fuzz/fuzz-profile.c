/*
 * libFuzzer harness of the profile parsers: Coz's records (tab format and
 * JSON lines, FUZZ_COZ) or causaltop's JSON document (FUZZ_JSON), then
 * everything that writes a profile read, as `causaltop report` would.
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "profile/causal_out.h"
#include "profile/html.h"
#include "profile/profile_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct profile *p = profile_new();
	char err[512];
	struct profile_parse pp = { .p = p, .name = "fuzz", .err = err, .errsize = sizeof(err) };
	int rc;

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
#if defined(FUZZ_COZ)
	rc = profile_parse_coz(&pp, (const char *) data, size);
#elif defined(FUZZ_JSON)
	rc = profile_parse_json(&pp, (const char *) data, size);
#else
# error "FUZZ_COZ or FUZZ_JSON"
#endif
	if (!rc) {
		profile_finish(p);
		causal_print_table(sink, &p->meta, p->stats, p->lines, p->progress, 0);
		causal_write_json(sink, &p->meta, p->stats, p->lines, p->progress);
		causal_write_coz(sink, &p->meta, p->stats, p->lines, p->progress);
		html_write(sink, p, 0);
	}
	profile_free(p);
	return 0;
}

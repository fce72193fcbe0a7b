#include "config.h"
#include <string.h>
#include "base/path.h"
#include "base/xmalloc.h"

static const char deleted_suffix[] = " (deleted)";

const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

char *
strip_deleted(const char *path, bool *deleted)
{
	size_t len = strlen(path);
	size_t slen = sizeof(deleted_suffix) - 1;
	char *copy = xstrdup(path);
	bool del = len > slen && !strcmp(copy + len - slen, deleted_suffix);

	if (del)
		copy[len - slen] = '\0';
	if (deleted)
		*deleted = del;
	return copy;
}

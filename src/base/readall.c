#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "base/readall.h"
#include "base/xmalloc.h"

int
read_all(int fd, char **data, size_t *len)
{
	size_t alloc = 1 << 16;
	char *buf = xmalloc(alloc);
	ssize_t n;

	*len = 0;
	for (;;) {
		/* One byte spare, for the NUL. */
		if (*len + 1 >= alloc)
			buf = xgrowarray(buf, &alloc, alloc + 1, 1);
		n = read(fd, buf + *len, alloc - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			free(buf);
			*data = NULL;
			return err;
		}
		if (!n)
			break;
		*len += (size_t) n;
	}
	buf[*len] = 0;
	*data = buf;
	return 0;
}

/*
 * Sanitizer runtimes in a command's executable.  A shared runtime shows
 * as a DT_NEEDED entry (gcc's libasan.so.N, liblsan.so.N); a static one
 * (clang's default) as its init function defined in the executable.
 */
#include "config.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/xmalloc.h"
#include "ptrace/sancheck.h"

static bool
has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static void
scan_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct san_runtime *rt)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Dyn mem, *d = gelf_getdyn(data, (int) i, &mem);
		const char *name;

		if (!d || d->d_tag == DT_NULL)
			break;
		if (d->d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, sh->sh_link, d->d_un.d_val);
		if (has_prefix(name, "libasan.so") && !rt->asan_needed) {
			rt->asan_needed = xstrdup(name);
			rt->asan = true;
		} else if (has_prefix(name, "liblsan.so")) {
			rt->lsan = true;
		}
	}
}

/* A runtime linked in defines its init function; a user of one only refers to it. */
static void
scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct san_runtime *rt)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym mem, *sym = gelf_getsym(data, (int) i, &mem);
		const char *name;

		if (!sym || sym->st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym->st_name);
		if (!name || name[0] != '_')
			continue;
		if (!strcmp(name, "__asan_init"))
			rt->asan = true;
		else if (!strcmp(name, "__lsan_init"))
			rt->lsan = true;
	}
}

bool
san_probe(const char *path, struct san_runtime *rt)
{
	Elf_Scn *scn = NULL;
	bool ok = false;
	int fd;
	Elf *elf;

	memset(rt, 0, sizeof(*rt));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		ok = true;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);

			if (!sh)
				continue;
			if (sh->sh_type == SHT_DYNAMIC)
				scan_dynamic(elf, scn, sh, rt);
			else if (sh->sh_type == SHT_DYNSYM || sh->sh_type == SHT_SYMTAB)
				scan_symbols(elf, scn, sh, rt);
		}
	}
	elf_end(elf);
	close(fd);
	/* ASan carries LeakSanitizer: lsan means LeakSanitizer alone. */
	if (rt->asan)
		rt->lsan = false;
	return ok;
}

void
san_free(struct san_runtime *rt)
{
	free(rt->asan_needed);
	rt->asan_needed = NULL;
}

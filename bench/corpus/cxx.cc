/*
 * cxx: an inverted index builder in C++17, as a search engine's indexer
 * is built: templates, lambdas and the STL's containers, inlined.
 *
 * The corpus is DOCS generated documents of DOC_WORDS pseudo-words (a
 * Zipf-like law over VOCAB words), cycled through.  Two threads make a
 * pipeline (std::thread), joined by a BoundedQueue<T> of QUEUE_CAP
 * documents.  The tokenizer splits each document into lower-case words,
 * a lambda, stem, folds each word into its stem signature (line "stem":
 * 0.4 unit per document, -u, default 100 us), by which the words are
 * sorted and made unique, and it queues the document's terms.  The
 * indexer takes them, and the template member function Index<Key,
 * Policy>::add computes each term's stretched key hash (line "hash": one
 * unit per document), the very hash by which the std::unordered_map of
 * posting lists (std::vector) places the term, and appends the document
 * to the term's list.  Each item is a document indexed.  At the end the
 * posting lists are sorted (std::sort).
 *
 * Each thread has a CPU, and the indexer is the bottleneck (1.2 unit a
 * document, the tokenizer 0.55): the tokenizer waits for room in the
 * queue.  So
 *
 *	speeding hash by s:	about 0.85 s, up to s = 0.6 (then the
 *				tokenizer bounds it)
 *	speeding stem:		0
 *
 * Threads are not pinned (-p: the tokenizer on CPU 0, the indexer on CPU
 * 1).  See tests/gt.h and workload.h (both C headers, which compile as
 * C++ as they are) for the options and the output; at exit it also
 * prints "cxx: docs D terms T postings P top TERM DF" on stderr.
 */
#include "workload.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t QUEUE_CAP = 64;	// documents between the two threads
constexpr int DOCS = 1024;		// distinct documents, cycled through
constexpr int DOC_WORDS = 128;
constexpr int VOCAB = 8192;
constexpr int DOC_TERMS = 94;		// unique terms in a document, on average

enum { STEM, HASH };

const struct gt_line cxx_lines[] = {
	{ "stem", 0.4 },		// STEM
	{ "hash", 1 },			// HASH
	{ nullptr, 0 },
};

// FNV-1a: the seed of stems and hashes.
inline uint64_t
fnv(const std::string &s)
{
	uint64_t h = 0xcbf29ce484222325UL;

	for (unsigned char c : s)
		h = (h ^ c) * 0x100000001b3UL;
	return h;
}

// Keys of type std::string are hashed by FNV-1a, then stretched.
struct StringPolicy {
	static uint64_t seed(const std::string &k) { return fnv(k); }
	static uint64_t salt(const std::string &k) { return k.size(); }
};

// An inverted index: for each key, the sorted list of its documents.
template <class Key, class Policy>
class Index {
public:
	using Postings = std::vector<uint32_t>;

	// Index document doc, whose keys are unique.  A key's hash must not
	// depend on the document: its rounds are the line's count shared
	// among a document's DOC_TERMS terms on average.  (Under -a, the
	// count changes between phases, and so a term may get two entries.)
	// Out of line, as a large member is: Index<...>::add in profiles.
	// The lock is for searches, which this program does not run.
	[[gnu::noinline]] void add(uint32_t doc, const std::vector<Key> &keys)
	{
		std::lock_guard<std::mutex> guard(lock_);
		unsigned long rounds = bench_share(gt_n(HASH), DOC_TERMS);

		for (const Key &k : keys) {
			uint64_t h = Policy::seed(k), salt = Policy::salt(k);

			for (unsigned long r = 0; r < rounds; r++) h = BENCH_MIX(h, r ^ salt);	/* GT:hash */
			map_[Hashed{ k, h }].push_back(doc);
			postings_++;
		}
	}

	// Sort every posting list (where several indexers feed an index,
	// documents come out of order).
	void finish()
	{
		for (auto &entry : map_)
			std::sort(entry.second.begin(), entry.second.end());
	}

	size_t terms() const { return map_.size(); }
	size_t postings() const { return postings_; }

	// The key with the longest posting list.
	std::pair<Key, size_t> top() const
	{
		auto it = std::max_element(map_.begin(), map_.end(),
			[](const auto &a, const auto &b) {
				return a.second.size() < b.second.size();
			});
		if (it == map_.end())
			return { Key(), 0 };
		return { it->first.key, it->second.size() };
	}

private:
	// A key with its stretched hash, which the map uses as it is.
	struct Hashed {
		Key key;
		uint64_t hash;
		bool operator==(const Hashed &o) const { return hash == o.hash && key == o.key; }
	};
	struct ByHash {
		size_t operator()(const Hashed &h) const noexcept { return h.hash; }
	};

	std::unordered_map<Hashed, Postings, ByHash> map_;
	std::mutex lock_;
	size_t postings_ = 0;
};

// A queue of at most cap elements between threads.
template <class T>
class BoundedQueue {
public:
	explicit BoundedQueue(size_t cap) : cap_(cap) {}

	void push(T &&v)
	{
		std::unique_lock<std::mutex> guard(lock_);

		not_full_.wait(guard, [this] { return q_.size() < cap_; });
		q_.push_back(std::move(v));
		not_empty_.notify_one();
	}

	T pop()
	{
		std::unique_lock<std::mutex> guard(lock_);

		not_empty_.wait(guard, [this] { return !q_.empty(); });
		T v = std::move(q_.front());
		q_.pop_front();
		not_full_.notify_one();
		return v;
	}

private:
	std::deque<T> q_;
	size_t cap_;
	std::mutex lock_;
	std::condition_variable not_full_, not_empty_;
};

// A tokenized document on its way to the index; no terms: the end.
struct Doc {
	uint32_t id;
	std::vector<std::string> terms;
};

std::vector<std::string> corpus;
Index<std::string, StringPolicy> inverted;
BoundedQueue<Doc> queue(QUEUE_CAP);
unsigned long docs_indexed;

// A vocabulary of pronounceable pseudo-words, some capitalized.
std::vector<std::string>
make_vocab()
{
	static const char cons[] = "bcdfghjklmnprstvwz", vow[] = "aeiou";
	std::vector<std::string> vocab;
	unsigned long s = 0x5eed;

	for (int i = 0; i < VOCAB; i++) {
		std::string w;
		int syll = 1 + bench_rand(&s) % 4;

		for (int j = 0; j < syll; j++) {
			w += cons[bench_rand(&s) % (sizeof(cons) - 1)];
			w += vow[bench_rand(&s) % (sizeof(vow) - 1)];
			if (bench_rand(&s) % 3 == 0)
				w += cons[bench_rand(&s) % (sizeof(cons) - 1)];
		}
		if (bench_rand(&s) % 8 == 0)
			w[0] = w[0] - 'a' + 'A';
		vocab.push_back(std::move(w));
	}
	return vocab;
}

// DOCS documents; word ranks are log-uniform (Zipf-like).
void
make_corpus()
{
	std::vector<std::string> vocab = make_vocab();
	unsigned long s = 0xc0ffee;

	corpus.resize(DOCS);
	for (std::string &doc : corpus)
		for (int w = 0; w < DOC_WORDS; w++) {
			double u = (bench_rand(&s) >> 11) * 0x1p-53;
			int rank = (int)std::exp(u * std::log(VOCAB)) - 1;
			unsigned long r = bench_rand(&s) % 16;

			doc += vocab[rank];
			doc += r == 0 ? ".\n" : r == 1 ? ", " : " ";
		}
}

// Split a document into lower-case words.
std::vector<std::string>
tokenize(const std::string &doc)
{
	std::vector<std::string> words;
	std::string w;

	for (char c : doc) {
		if (c >= 'A' && c <= 'Z')
			c = c - 'A' + 'a';
		if (c >= 'a' && c <= 'z') {
			w += c;
		} else if (!w.empty()) {
			words.push_back(std::move(w));
			w.clear();
		}
	}
	if (!w.empty())
		words.push_back(std::move(w));
	return words;
}

void
tokenizer()
{
	gt_pin(0);
	for (uint32_t doc = 0; gt_claim(); doc++) {
		std::vector<std::string> words = tokenize(corpus[doc % DOCS]);
		unsigned long rounds = bench_share(gt_n(STEM), words.size());
		std::vector<std::pair<uint64_t, size_t>> stems;
		Doc d{ doc, {} };

		// A word's stem signature: words of one stem are one term.
		auto stem = [rounds](const std::string &w) {
			uint64_t x = fnv(w), c = (unsigned char)w[0];

			for (unsigned long r = 0; r < rounds; r++) x = BENCH_MIX(x, c ^ r);	/* GT:stem */
			return x;
		};
		for (size_t i = 0; i < words.size(); i++)
			stems.emplace_back(stem(words[i]), i);
		std::sort(stems.begin(), stems.end());
		stems.erase(std::unique(stems.begin(), stems.end(),
					[](const auto &a, const auto &b) { return a.first == b.first; }),
			    stems.end());
		for (const auto &st : stems)
			d.terms.push_back(std::move(words[st.second]));
		queue.push(std::move(d));
	}
	queue.push(Doc{ 0, {} });
}

void
indexer()
{
	gt_pin(1);
	for (;;) {
		Doc d = queue.pop();

		if (d.terms.empty())
			return;
		inverted.add(d.id, d.terms);
		docs_indexed++;
		gt_progress();
	}
}

} // namespace

int
main(int argc, char **argv)
{
	gt.prog = "cxx";
	gt.n = 12000;
	gt.unit_us = 100;
	gt.pin = 0;
	gt.lines = cxx_lines;
	gt_init(argc, argv);
	make_corpus();

	std::thread tok(tokenizer), idx(indexer);

	tok.join();
	idx.join();
	gt_report();
	inverted.finish();
	auto top = inverted.top();
	fprintf(stderr, "cxx: docs %lu terms %zu postings %zu top %s %zu\n",
		docs_indexed, inverted.terms(), inverted.postings(),
		top.first.c_str(), top.second);
	return 0;
}

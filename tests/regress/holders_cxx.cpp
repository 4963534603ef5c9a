// SPDX-License-Identifier: GPL-2.0-or-later
// Holders of native memory (docs/holders.md): a heap array of pointers made
// once (its capacity bounds what it holds: a third full, it is a bounded
// holder), a std::vector and a std::unordered_map that keep growing (their
// buffers grow too: nothing bounds them; the map in a namespace is named as
// C++ writes it), and a list only a thread's stack holds.
//
//   holders_cxx N
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <unordered_map>
#include <vector>

struct Rec {
    long id;
    char text[56];
};

__attribute__((noinline)) static Rec* make_rec(long id) {
    Rec* r = new Rec; // ARRAY_REC
    r->id = id;
    return r;
}

__attribute__((noinline)) static Rec* make_vector_rec(long id) {
    Rec* r = new Rec; // VECTOR_REC
    r->id = id;
    return r;
}

__attribute__((noinline)) static Rec* make_map_rec(long id) {
    Rec* r = new Rec; // MAP_REC
    r->id = id;
    return r;
}

struct Node {
    Node* next;
    char payload[40];
};

__attribute__((noinline)) static Node* make_node(Node* next) {
    Node* n = new Node; // THREAD_NODE
    n->next = next;
    return n;
}

Rec** ring;                            // made once, 3 N slots
std::vector<Rec*> records;             // grows
namespace store { // a C++ name is shown demangled: store::by_id
std::unordered_map<long, Rec*> by_id; // grows
} // namespace store

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t built = PTHREAD_COND_INITIALIZER;
static bool ready;
static long n_nodes;

// Builds a list its own frame alone holds, then waits for the end.
static void* worker(void*) {
    Node* head = nullptr;
    for (long i = 0; i < n_nodes; ++i)
        head = make_node(head);
    pthread_mutex_lock(&lock);
    ready = true;
    pthread_cond_broadcast(&built);
    pthread_mutex_unlock(&lock);
    for (;;) {
        __asm__ volatile("" : : "r"(head) : "memory");
        pause();
    }
    return nullptr;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    n_nodes = n;
    ring = static_cast<Rec**>(calloc(3 * n, sizeof(Rec*))); // RING_ARRAY
    pthread_t t;
    pthread_create(&t, nullptr, worker, nullptr);
    for (long i = 0; i < n; ++i) {
        ring[i] = make_rec(i);
        records.push_back(make_vector_rec(i));
        store::by_id[i] = make_map_rec(i);
    }
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&built, &lock);
    pthread_mutex_unlock(&lock);
    exit(0); // scanned at exit, with the worker still holding its list
}

// SPDX-License-Identifier: GPL-2.0-or-later
// A memo table fed new keys forever and freed by its static destructor at
// exit: the growth must be reported although nothing is left at exit.
#include <cstdlib>
#include <string>
#include <unordered_map>

static std::unordered_map<int, std::string> memo; // destroyed after main returns

static const std::string& lookup(int key) {
    auto it = memo.find(key);
    if (it == memo.end()) it = memo.emplace(key, std::string(64, 'x')).first; // MEMO_HERE
    return it->second;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 20000;
    std::size_t total = 0;
    for (int i = 0; i < n; i++) {
        total += lookup(i).size();     // every key is new
        std::string scratch(100, 'y'); // churn
        total += scratch.size();
    }
    return total == 0;
}

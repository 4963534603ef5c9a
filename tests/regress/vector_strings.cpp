// SPDX-License-Identifier: GPL-2.0-or-later
// A vector of strings filled and cleared again and again: its capacity is
// reached in the first round, the strings come and go. Nothing grows.
#include <cstdlib>
#include <string>
#include <vector>

static std::vector<std::string> batch; // global: reachable at exit

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 300; i++)
            batch.push_back(std::string(40 + i % 50, 'a' + i % 26)); // FILL_HERE
        batch.clear();
    }
    return 0;
}

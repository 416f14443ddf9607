/* A WASM verifier plugin in C: rewards concise responses.
 *
 * The interface (see the README, "Adding a verifier"): a WASI command that reads one
 * sample as JSON on stdin and writes its answer as JSON on stdout, then exits 0. The
 * answer is a number, a bool, or {"reward": r, "details": {...},
 * "reward_components": {...}}.
 *
 * Reward: 1 for a response of at most LIMIT words, LIMIT / words beyond it.
 * Build:  cascade build-plugin examples/plugins/concise.c   (writes concise.wasm)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 50
#define MAX_INPUT (8 << 20)

/* Reads all of stdin (at most MAX_INPUT bytes) into a NUL-terminated buffer. */
static char *read_all(size_t *length) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= MAX_INPUT) break;
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    if (buf) buf[n] = 0;
    *length = n;
    return buf;
}

/* Skips a JSON string starting at its opening quote; returns the byte after it. */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

/* The value of the top-level key "response": a pointer to its opening quote, or NULL.
 * Walks the object's nesting so that a nested "response" key is not taken. */
static const char *find_response(const char *p) {
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            const char *end = skip_string(p);
            if (depth == 1 && end - p == 10 && strncmp(p, "\"response\"", 10) == 0) {
                const char *q = end;
                while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
                if (*q == ':') {
                    q++;
                    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
                    return *q == '"' ? q : NULL;
                }
            }
            p = end - 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        }
    }
    return NULL;
}

/* Words of the JSON string at p: runs of characters that are not whitespace, where
 * the escapes \n, \t and \r count as whitespace. */
static long count_words(const char *p) {
    long words = 0;
    int in_word = 0;
    for (p++; *p && *p != '"'; p++) {
        int space = *p == ' ';
        if (*p == '\\' && p[1]) {
            p++;
            space = *p == 'n' || *p == 't' || *p == 'r';
        }
        if (space) {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    return words;
}

int main(void) {
    size_t length;
    char *input = read_all(&length);
    const char *response = input ? find_response(input) : NULL;
    if (!response) {
        printf("{\"reward\": 0, \"details\": {\"error\": \"no string `response`\"}}\n");
        return 0;
    }
    long words = count_words(response);
    double reward = words <= LIMIT ? 1.0 : (double)LIMIT / (double)words;
    printf("{\"reward\": %.6f, \"details\": {\"words\": %ld}}\n", reward, words);
    return 0;
}

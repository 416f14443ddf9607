// cascade: what competitive C++ takes from libstdc++ and libc++ lacks, included
// before every C++ program (`-include cascade_compat.h`).
#ifndef CASCADE_COMPAT_H
#define CASCADE_COMPAT_H
#ifdef __cplusplus
// libstdc++'s std::__gcd: Euclid with the sign rules of `%`. One template per integer
// type, with nothing to deduce: libc++ has a generic `std::__gcd` template of its own
// (unsigned types only), and under `using namespace std` this one is the more
// specialised, so it wins without ambiguity; a program's own `__gcd`, a plain
// function, still wins over both, and is no redefinition.
#define CASCADE_GCD(T)                                    \
  template <class = void> constexpr T __gcd(T m, T n) { \
    while (n != 0) {                                      \
      T t = m % n;                                        \
      m = n;                                              \
      n = t;                                              \
    }                                                     \
    return m;                                             \
  }
CASCADE_GCD(int)
CASCADE_GCD(long)
CASCADE_GCD(long long)
CASCADE_GCD(unsigned)
CASCADE_GCD(unsigned long)
CASCADE_GCD(unsigned long long)
#undef CASCADE_GCD
// libstdc++'s std::__lg: the index of the highest set bit (floor(log2(n)), n > 0).
template <class T> constexpr int __lg(T n) {
  return sizeof(T) <= sizeof(unsigned)
             ? int(sizeof(unsigned) * 8 - 1 - __builtin_clz((unsigned)n))
             : int(sizeof(unsigned long long) * 8 - 1 - __builtin_clzll((unsigned long long)n));
}
#endif
#endif

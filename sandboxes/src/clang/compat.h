// cascade: what competitive C++ takes from libstdc++ and libc++ lacks, included
// before every C++ program (`-include cascade_compat.h`). Templates, so a program's
// own function of the same name (a better match) still wins.
#ifndef CASCADE_COMPAT_H
#define CASCADE_COMPAT_H
#ifdef __cplusplus
// libstdc++'s std::__gcd: Euclid with the sign rules of `%`.
template <class T> constexpr T __gcd(T m, T n) {
  while (n != 0) {
    T t = m % n;
    m = n;
    n = t;
  }
  return m;
}
// libstdc++'s std::__lg: the index of the highest set bit (floor(log2(n)), n > 0).
template <class T> constexpr int __lg(T n) {
  return sizeof(T) <= sizeof(unsigned)
             ? int(sizeof(unsigned) * 8 - 1 - __builtin_clz((unsigned)n))
             : int(sizeof(unsigned long long) * 8 - 1 - __builtin_clzll((unsigned long long)n));
}
#endif
#endif

// Uses the installed retrylab: a closed form from retrylab::analytic.
#include <analytic/aloha.hpp>
#include <cstdio>

int main() {
  const retrylab::analytic::PureAloha m{0.5};
  std::printf("aloha goodput at 0.5 = %.7f\n", retrylab::analytic::goodput(m));
}

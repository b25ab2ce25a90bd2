#pragma once
// The contention model's type for each Model (montecarlo/models/*.hpp), per tier.
#include "analytic/model.hpp"
#include "montecarlo/models/collision.hpp"
#include "montecarlo/models/first_commit.hpp"
#include "montecarlo/models/no_conflict.hpp"

namespace retrylab::montecarlo::detail {

template <Model M, bool Full>
struct model_of;
template <bool Full>
struct model_of<Model::collision, Full> {
  using type = CollisionModel<Full>;
};
template <bool Full>
struct model_of<Model::free, Full> {
  using type = FreeModel<Full>;
};
template <bool Full>
struct model_of<Model::shared, Full> {
  using type = SharedModel<Full>;
};
template <bool Full>
struct model_of<Model::ps, Full> {
  using type = PsModel<Full>;
};
template <bool Full>
struct model_of<Model::none, Full> {
  using type = NoneModel<Full>;
};

}  // namespace retrylab::montecarlo::detail

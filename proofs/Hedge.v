(** One hedge without contention (analytic/hedge.hpp). A request's first attempt is sent at 0 and
    a second at d >= 0 unless the first has answered; their services S1, S2 are exponential of
    rate μ > 0 and independent; the latency is L = min(S1, d + S2). Proved here, about the closed
    form's pieces:
    - hedge_survival_product: for t >= d, P(S1 > t)·P(S2 > t − d) = e^(−μt)·e^(−μ(t−d)) =
      e^(−μ(2t−d)), the survival function after d (its value before d is P(S1 > t) = e^(−μt));
    - hedge_head_integral: ∫₀^d e^(−μt) dt = (1 − e^(−μd))/μ;
    - hedge_tail_integral: ∫_d^∞ e^(−μ(2t−d)) dt = e^(−μd)/(2μ) (improper at +∞);
    - hedge_mean: the two pieces sum to 1/μ − e^(−μd)/(2μ).
    Cited, not proved: independence (P(L > t) is the product for t >= d), E[L] = ∫₀^∞ P(L > t) dt for
    L >= 0, and the split of that integral at d into the two pieces above.
    Backs analytic hedge_mean_latency / hedge_survival (the validation cases whose names start with hedge). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Occ.
Open Scope R_scope.

(** After d the survival function of min(S1, d + S2) is the product of the two survivals. *)
Theorem hedge_survival_product : forall mu d t, d <= t ->
  exp (- mu * t) * exp (- mu * (t - d)) = exp (- mu * (2 * t - d)).
Proof.
  intros mu d t _. rewrite <- exp_plus. f_equal. ring.
Qed.

(** The survival function before d integrated: ∫₀^d e^(−μt) dt = (1 − e^(−μd))/μ. *)
Theorem hedge_head_integral : forall mu d, 0 < mu ->
  is_RInt (fun t => exp (- mu * t)) 0 d ((1 - exp (- mu * d)) / mu).
Proof.
  intros mu d Hmu.
  assert (H : is_RInt (fun t => exp (- mu * t)) 0 d
                (minus (- exp (- mu * d) / mu) (- exp (- mu * 0) / mu))).
  { apply (is_RInt_derive (V := R_CompleteNormedModule) (fun t => - exp (- mu * t) / mu)).
    - intros x _. auto_derive; [exact I | field; lra].
    - intros x _. apply (ex_derive_continuous (V := R_NormedModule) (fun t => exp (- mu * t))).
      auto_derive. exact I. }
  replace ((1 - exp (- mu * d)) / mu) with (minus (- exp (- mu * d) / mu) (- exp (- mu * 0) / mu)).
  - exact H.
  - unfold minus, plus, opp; simpl. rewrite Rmult_0_r, exp_0. field. lra.
Qed.

(** The antiderivative of e^(−μ(2t−d)) and its limit 0 at +∞. *)
Definition hedge_tail_primitive (mu d t : R) : R := - exp (- mu * (2 * t - d)) / (2 * mu).

Lemma hedge_tail_primitive_derive : forall mu d t, 0 < mu ->
  is_derive (hedge_tail_primitive mu d) t (exp (- mu * (2 * t - d))).
Proof.
  intros mu d t Hmu. unfold hedge_tail_primitive. auto_derive; [exact I |].
  replace (2 * t + - d) with (2 * t - d) by ring. field. lra.
Qed.

Lemma hedge_tail_primitive_lim : forall mu d, 0 < mu ->
  is_lim (hedge_tail_primitive mu d) p_infty 0.
Proof.
  intros mu d Hmu.
  assert (H2 : 0 < 2 * mu) by lra.
  assert (H : is_lim (fun t => (- exp (mu * d) / (2 * mu)) * / exp (2 * mu * t)) p_infty
                (- exp (mu * d) / (2 * mu) * 0)).
  { apply (is_lim_scal_l _ (- exp (mu * d) / (2 * mu)) p_infty 0).
    exact (lim_scale (fun y => / exp y) 0 (2 * mu) H2 lim_inv_exp). }
  replace (- exp (mu * d) / (2 * mu) * 0) with 0 in H by ring.
  refine (is_lim_ext_loc _ _ _ _ _ H).
  exists 0. intros t _. unfold hedge_tail_primitive.
  replace (- mu * (2 * t - d)) with (mu * d + - (2 * mu * t)) by ring.
  rewrite exp_plus, exp_Ropp. field.
  repeat split; apply Rgt_not_eq; first [apply exp_pos | lra].
Qed.

(** The survival function after d integrated: ∫_d^∞ e^(−μ(2t−d)) dt = e^(−μd)/(2μ). *)
Theorem hedge_tail_integral : forall mu d, 0 < mu ->
  is_RInt_gen (fun t => exp (- mu * (2 * t - d))) (at_point d) (Rbar_locally p_infty)
    (exp (- mu * d) / (2 * mu)).
Proof.
  intros mu d Hmu.
  assert (Hd : is_RInt_gen (Derive (hedge_tail_primitive mu d)) (at_point d) (Rbar_locally p_infty)
                 (0 - hedge_tail_primitive mu d d)).
  { apply is_RInt_gen_Derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _. eexists. apply hedge_tail_primitive_derive, Hmu.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _.
      apply (continuous_ext_loc _ (fun t => exp (- mu * (2 * t - d)))).
      + apply filter_forall. intro y. symmetry. apply is_derive_unique, hedge_tail_primitive_derive, Hmu.
      + apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
    - apply filterlim_at_point_self.
    - exact (hedge_tail_primitive_lim mu d Hmu). }
  replace (exp (- mu * d) / (2 * mu)) with (0 - hedge_tail_primitive mu d d).
  - refine (is_RInt_gen_ext _ _ _ _ Hd).
    exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
    intros a b _ _ x _. apply is_derive_unique, hedge_tail_primitive_derive, Hmu.
  - unfold hedge_tail_primitive. replace (- mu * (2 * d - d)) with (- mu * d) by ring. field. lra.
Qed.

(** The two pieces sum to the closed form's mean 1/μ − e^(−μd)/(2μ). *)
Theorem hedge_mean : forall mu d, 0 < mu ->
  (1 - exp (- mu * d)) / mu + exp (- mu * d) / (2 * mu) = 1 / mu - exp (- mu * d) / (2 * mu).
Proof.
  intros mu d Hmu. field. lra.
Qed.

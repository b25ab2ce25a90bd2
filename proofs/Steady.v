(** The fixed points of the mean-field model of steady traffic (analytic/steady.hpp). The model is
    an estimate; what is proved here is the structure of its equations. n clients wait; an attempt
    fails with probability p = fail(G) when attempts start at rate G; with m_k the mean sleep after
    k failures (m_0 = 0, m_k = m_S past the cap's stage S) a client's cycle gives
    G = n / (1 + (1 - p) M(p)), M(p) = sum_k p^k m_k (steady.cpp: rate_given, D = 1), and
    (1 - p) M(p) = sum_(k=1..S) d_k p^k with d_k = m_k - m_(k-1) (stage_poly). So the backlog at
    which the attempt rate is G is backlog fail d G = G (1 + stage_poly d (fail G)).
    With the stage means nondecreasing (every d_k >= 0) and fail nondecreasing from 0:
    - backlog is strictly increasing and onto [0, inf): every backlog n >= 0 has exactly one attempt
      rate G(n), increasing in n (mean_field_attempt_rate; the code finds it by bisection);
    - collision (fail G = 1 - e^(-2G), success rate S = G e^(-2G) = aloha G): for 0 < lambda < 1/(2e)
      exactly two fixed points n_s < n_u of the drift lambda - S(n), the drift positive below n_s,
      negative between, positive above n_u: n_s stable, n_u unstable
      (mean_field_collision_fixed_points); above the peak 1/(2e) none, the drift is positive at
      every backlog (mean_field_collision_above_peak);
    - free (fail G = G/(1+G), S = G/(1+G) = occ_goodput G): for 0 < lambda < 1 exactly one, stable
      (mean_field_free_fixed_point); for lambda >= 1 none (mean_field_free_above_capacity);
    - shared (fail G = G, attempts stretched to 1/(1-G): shared_backlog; S = G (1 - G)): every
      backlog has one attempt rate in [0, 1) (mean_field_shared_attempt_rate); for 0 < lambda < 1/4
      two fixed points, stable then unstable (mean_field_shared_fixed_points); above 1/4 none
      (mean_field_shared_above_peak).
    The drift statements are about the success rate at the backlog's own attempt rate: a backlog n
    is written backlog fail d G for its G (one-to-one by mean_field_attempt_rate). *)
From Coq Require Import Reals Ranalysis5 Lra List.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Bounds Aloha Occ.
Open Scope R_scope.

(** sum_(k >= 1) d_k p^k, in Horner form. *)
Fixpoint stage_poly (d : list R) (p : R) : R :=
  match d with
  | nil => 0
  | dk :: t => p * (dk + stage_poly t p)
  end.

Definition backlog (fail : R -> R) (d : list R) (G : R) : R := G * (1 + stage_poly d (fail G)).

Definition collision_fail (G : R) : R := 1 - exp (-2 * G).

Lemma stage_poly_nonneg : forall d p, List.Forall (Rle 0) d -> 0 <= p -> 0 <= stage_poly d p.
Proof.
  intros d p Hd Hp. induction d as [| a t IH]; simpl; [lra |].
  inversion Hd as [| ? ? Ha Ht]; subst. pose proof (IH Ht). apply Rmult_le_pos; lra.
Qed.

Lemma stage_poly_mono : forall d p q, List.Forall (Rle 0) d -> 0 <= p <= q -> stage_poly d p <= stage_poly d q.
Proof.
  intros d p q Hd Hpq. induction d as [| a t IH]; simpl; [lra |].
  inversion Hd as [| ? ? Ha Ht]; subst.
  pose proof (IH Ht). pose proof (stage_poly_nonneg t p Ht ltac:(lra)).
  apply Rmult_le_compat; lra.
Qed.

Lemma stage_poly_derive : forall d p, ex_derive (fun q => stage_poly d q) p.
Proof.
  intros d p. induction d as [| a t IH]; simpl.
  - apply ex_derive_const.
  - apply (ex_derive_mult (fun q => q) (fun q => a + stage_poly t q)); [apply ex_derive_id |].
    apply (ex_derive_plus (fun _ => a) (fun q => stage_poly t q)); [apply ex_derive_const | exact IH].
Qed.

(** The general facts, for any failure law that is nonnegative and nondecreasing on [0, inf). *)
Lemma backlog_increasing : forall (fail : R -> R) d G1 G2,
  List.Forall (Rle 0) d -> (forall G, 0 <= G -> 0 <= fail G) ->
  (forall x y, 0 <= x <= y -> fail x <= fail y) ->
  0 <= G1 < G2 -> backlog fail d G1 < backlog fail d G2.
Proof.
  intros fail d G1 G2 Hd Hf Hm HG. unfold backlog.
  pose proof (stage_poly_nonneg d (fail G1) Hd (Hf G1 ltac:(lra))).
  pose proof (stage_poly_mono d (fail G1) (fail G2) Hd (conj (Hf G1 ltac:(lra)) (Hm G1 G2 ltac:(lra)))).
  nra.
Qed.

Lemma backlog_order : forall (fail : R -> R) d G1 G2,
  List.Forall (Rle 0) d -> (forall G, 0 <= G -> 0 <= fail G) ->
  (forall x y, 0 <= x <= y -> fail x <= fail y) ->
  0 <= G1 -> 0 <= G2 -> backlog fail d G1 < backlog fail d G2 -> G1 < G2.
Proof.
  intros fail d G1 G2 Hd Hf Hm H1 H2 Hlt.
  destruct (Rtotal_order G1 G2) as [Hl | [He | Hg]]; [exact Hl | subst; lra |].
  pose proof (backlog_increasing fail d G2 G1 Hd Hf Hm ltac:(lra)). lra.
Qed.

Lemma backlog_injective : forall (fail : R -> R) d G1 G2,
  List.Forall (Rle 0) d -> (forall G, 0 <= G -> 0 <= fail G) ->
  (forall x y, 0 <= x <= y -> fail x <= fail y) ->
  0 <= G1 -> 0 <= G2 -> backlog fail d G1 = backlog fail d G2 -> G1 = G2.
Proof.
  intros fail d G1 G2 Hd Hf Hm H1 H2 He.
  destruct (Rtotal_order G1 G2) as [Hl | [Heq | Hg]]; [| exact Heq |].
  - pose proof (backlog_increasing fail d G1 G2 Hd Hf Hm ltac:(lra)). lra.
  - pose proof (backlog_increasing fail d G2 G1 Hd Hf Hm ltac:(lra)). lra.
Qed.

Lemma backlog_onto : forall (fail : R -> R) d n,
  List.Forall (Rle 0) d -> (forall G, 0 <= G -> 0 <= fail G) -> (forall G, 0 <= G -> ex_derive fail G) ->
  0 <= n -> exists G, 0 <= G <= n /\ backlog fail d G = n.
Proof.
  intros fail d n Hd Hf Hder Hn.
  destruct (Req_dec n 0) as [-> | Hn0].
  { exists 0. split; [lra | unfold backlog; ring]. }
  pose proof (stage_poly_nonneg d (fail n) Hd (Hf n Hn)) as Hp.
  destruct (Req_dec (backlog fail d n) n) as [Heq | Hne]; [exists n; split; [lra | exact Heq] |].
  assert (Hup : 0 < backlog fail d n - n).
  { unfold backlog in *. assert (0 <= n * stage_poly d (fail n)) by (apply Rmult_le_pos; lra). nra. }
  destruct (IVT_interv (fun G => backlog fail d G - n) 0 n) as [G [HG HGn]].
  - intros a Ha. apply continuity_pt_filterlim, (ex_derive_continuous (fun G => backlog fail d G - n)).
    apply (ex_derive_minus (fun G => backlog fail d G) (fun _ => n)); [| apply ex_derive_const].
    unfold backlog.
    apply (ex_derive_mult (fun G => G) (fun G => 1 + stage_poly d (fail G))); [apply ex_derive_id |].
    apply (ex_derive_plus (fun _ => 1) (fun G => stage_poly d (fail G))); [apply ex_derive_const |].
    apply (ex_derive_comp (fun q => stage_poly d q) fail); [apply stage_poly_derive | apply Hder; lra].
  - lra.
  - unfold backlog. simpl. lra.
  - exact Hup.
  - exists G. split; [exact HG | simpl in HGn; lra].
Qed.

Lemma collision_fail_nonneg : forall G, 0 <= G -> 0 <= collision_fail G.
Proof.
  intros G HG. unfold collision_fail. rewrite <- exp_0.
  destruct (Req_dec G 0) as [-> | Hne]; [replace (-2 * 0) with 0 by ring; lra |].
  pose proof (exp_increasing (-2 * G) 0 ltac:(lra)). lra.
Qed.

Lemma collision_fail_mono : forall x y, 0 <= x <= y -> collision_fail x <= collision_fail y.
Proof.
  intros x y Hxy. unfold collision_fail.
  destruct (Req_dec x y) as [-> | Hne]; [lra |].
  pose proof (exp_increasing (-2 * y) (-2 * x) ltac:(lra)). lra.
Qed.

Lemma collision_fail_derive : forall G, ex_derive collision_fail G.
Proof. intro G. unfold collision_fail. auto_derive. exact I. Qed.

Lemma free_fail_nonneg : forall G, 0 <= G -> 0 <= occ_goodput G.
Proof. intros G HG. exact (proj1 (proj1 (occ_bounds G HG))). Qed.

Lemma free_fail_mono : forall x y, 0 <= x <= y -> occ_goodput x <= occ_goodput y.
Proof.
  intros x y Hxy. destruct (Req_dec x y) as [-> | Hne]; [lra |].
  left. apply occ_increasing; lra.
Qed.

Lemma free_fail_derive : forall G, 0 <= G -> ex_derive occ_goodput G.
Proof. intros G HG. unfold occ_goodput. auto_derive. lra. Qed.

(** Every backlog n >= 0 has exactly one attempt rate G >= 0, on collision and on free; and the
    backlog grows strictly with G, so G(n) increases with n. *)
Theorem mean_field_attempt_rate : forall (d : list R) (n : R), List.Forall (Rle 0) d -> 0 <= n ->
  (exists! G : R, 0 <= G /\ backlog collision_fail d G = n) /\
  (exists! G : R, 0 <= G /\ backlog occ_goodput d G = n) /\
  (forall G1 G2, 0 <= G1 < G2 ->
     backlog collision_fail d G1 < backlog collision_fail d G2 /\
     backlog occ_goodput d G1 < backlog occ_goodput d G2).
Proof.
  intros d n Hd Hn. split; [| split].
  - destruct (backlog_onto collision_fail d n Hd collision_fail_nonneg
                (fun G _ => collision_fail_derive G) Hn) as [G [HG HGn]].
    exists G. split; [split; [lra | exact HGn] |].
    intros G' [HG' HG'n]. apply (backlog_injective collision_fail d); auto using collision_fail_nonneg, collision_fail_mono; lra.
  - destruct (backlog_onto occ_goodput d n Hd free_fail_nonneg free_fail_derive Hn) as [G [HG HGn]].
    exists G. split; [split; [lra | exact HGn] |].
    intros G' [HG' HG'n]. apply (backlog_injective occ_goodput d); auto using free_fail_nonneg, free_fail_mono; lra.
  - intros G1 G2 HG. split.
    + apply backlog_increasing; auto using collision_fail_nonneg, collision_fail_mono.
    + apply backlog_increasing; auto using free_fail_nonneg, free_fail_mono.
Qed.

Lemma aloha_zero : aloha 0 = 0.
Proof. unfold aloha. ring. Qed.

(** collision below ALOHA's peak: two fixed points, the low one stable, the high one unstable. *)
Theorem mean_field_collision_fixed_points : forall (d : list R) (lambda : R),
  List.Forall (Rle 0) d -> 0 < lambda < / (2 * exp 1) ->
  exists n_s n_u : R, 0 < n_s < n_u /\
  forall G : R, 0 <= G ->
    (aloha G = lambda <-> backlog collision_fail d G = n_s \/ backlog collision_fail d G = n_u) /\
    (backlog collision_fail d G < n_s -> aloha G < lambda) /\
    (n_s < backlog collision_fail d G < n_u -> lambda < aloha G) /\
    (n_u < backlog collision_fail d G -> aloha G < lambda).
Proof.
  intros d lambda Hd Hl.
  pose proof (proj1 (proj2 (aloha_max 0))) as Hpeak.
  destruct (aloha_inverse_low_unique lambda ltac:(lra)) as [Gs [[HGs HGsl] _]].
  destruct (aloha_inverse_high_unique lambda ltac:(lra)) as [Gu [[HGu HGul] _]].
  assert (Gs <> 1 / 2) by (intro E; rewrite E in HGsl; lra).
  assert (Gu <> 1 / 2) by (intro E; rewrite E in HGul; lra).
  assert (Gs <> 0) by (intro E; rewrite E, aloha_zero in HGsl; lra).
  set (h := backlog collision_fail d).
  assert (Hinc : forall x y, 0 <= x < y -> h x < h y)
    by (intros; apply backlog_increasing; auto using collision_fail_nonneg, collision_fail_mono).
  assert (Hord : forall x y, 0 <= x -> 0 <= y -> h x < h y -> x < y)
    by (intros; eapply backlog_order; eauto using collision_fail_nonneg, collision_fail_mono).
  exists (h Gs), (h Gu). split.
  { split.
    - unfold h, backlog. pose proof (stage_poly_nonneg d (collision_fail Gs) Hd (collision_fail_nonneg Gs ltac:(lra))). nra.
    - apply Hinc. lra. }
  intros G HG.
  assert (Hbelow : h G < h Gs -> aloha G < lambda).
  { intro Hlt. pose proof (Hord G Gs HG ltac:(lra) Hlt). rewrite <- HGsl. apply aloha_increasing; lra. }
  assert (Hbetween : h Gs < h G < h Gu -> lambda < aloha G).
  { intros [Hb1 Hb2]. pose proof (Hord Gs G ltac:(lra) HG Hb1). pose proof (Hord G Gu HG ltac:(lra) Hb2).
    destruct (Rle_lt_dec G (1 / 2)).
    - rewrite <- HGsl. apply aloha_increasing; lra.
    - rewrite <- HGul. apply aloha_decreasing; lra. }
  assert (Habove : h Gu < h G -> aloha G < lambda).
  { intro Hlt. pose proof (Hord Gu G ltac:(lra) HG Hlt). rewrite <- HGul. apply aloha_decreasing; lra. }
  split; [| split; [exact Hbelow | split; [exact Hbetween | exact Habove]]].
  split.
  - intro Heq. fold h.
    destruct (Rtotal_order (h G) (h Gs)) as [Hlt | [Hes | Hgt]]; [pose proof (Hbelow Hlt); lra | left; exact Hes |].
    destruct (Rtotal_order (h G) (h Gu)) as [Hlt | [Heu | Hgt']]; [pose proof (Hbetween (conj Hgt Hlt)); lra | right; exact Heu |].
    pose proof (Habove Hgt'); lra.
  - intros [E | E].
    + assert (G = Gs) as -> by (apply (backlog_injective collision_fail d); auto using collision_fail_nonneg, collision_fail_mono; lra).
      exact HGsl.
    + assert (G = Gu) as -> by (apply (backlog_injective collision_fail d); auto using collision_fail_nonneg, collision_fail_mono; lra).
      exact HGul.
Qed.

(** collision above ALOHA's peak: no fixed point, the backlog grows from every start. *)
Theorem mean_field_collision_above_peak : forall (lambda G : R),
  / (2 * exp 1) < lambda -> aloha G < lambda.
Proof.
  intros lambda G Hl. destruct (aloha_max G) as [Hle [Hpeak _]]. lra.
Qed.

(** free: one fixed point, stable, for every load below 1. *)
Theorem mean_field_free_fixed_point : forall (d : list R) (lambda : R),
  List.Forall (Rle 0) d -> 0 < lambda < 1 ->
  exists n_s : R, 0 < n_s /\
  forall G : R, 0 <= G ->
    (occ_goodput G = lambda <-> backlog occ_goodput d G = n_s) /\
    (backlog occ_goodput d G < n_s -> occ_goodput G < lambda) /\
    (n_s < backlog occ_goodput d G -> lambda < occ_goodput G).
Proof.
  intros d lambda Hd Hl.
  set (Gs := lambda / (1 - lambda)).
  assert (HGs : 0 < Gs) by (unfold Gs; apply Rdiv_lt_0_compat; lra).
  assert (HGsl : occ_goodput Gs = lambda) by (unfold occ_goodput, Gs; field; lra).
  set (h := backlog occ_goodput d).
  assert (Hord : forall x y, 0 <= x -> 0 <= y -> h x < h y -> x < y)
    by (intros; eapply backlog_order; eauto using free_fail_nonneg, free_fail_mono).
  exists (h Gs). split.
  { unfold h, backlog. pose proof (stage_poly_nonneg d (occ_goodput Gs) Hd (free_fail_nonneg Gs ltac:(lra))). nra. }
  intros G HG.
  assert (Hbelow : h G < h Gs -> occ_goodput G < lambda).
  { intro Hlt. pose proof (Hord G Gs HG ltac:(lra) Hlt). rewrite <- HGsl. apply occ_increasing; lra. }
  assert (Habove : h Gs < h G -> lambda < occ_goodput G).
  { intro Hlt. pose proof (Hord Gs G ltac:(lra) HG Hlt). rewrite <- HGsl. apply occ_increasing; lra. }
  split; [| split; [exact Hbelow | exact Habove]].
  split.
  - intro Heq. fold h.
    destruct (Rtotal_order (h G) (h Gs)) as [Hlt | [He | Hgt]]; [pose proof (Hbelow Hlt); lra | exact He |].
    pose proof (Habove Hgt); lra.
  - intro E.
    assert (G = Gs) as -> by (apply (backlog_injective occ_goodput d); auto using free_fail_nonneg, free_fail_mono; lra).
    exact HGsl.
Qed.

(** free at or above capacity: no fixed point. *)
Theorem mean_field_free_above_capacity : forall (lambda G : R),
  1 <= lambda -> 0 <= G -> occ_goodput G < lambda.
Proof.
  intros lambda G Hl HG. pose proof (proj1 (occ_bounds G HG)). lra.
Qed.

(** shared: an attempt fails with p = G (steady.cpp: P(G) = 1 - G) and is stretched to
    D = 1/(1 - G) by processor sharing, so G (M(p) + D A(p)) = n A(p) gives the backlog
    G (stage_poly d G + 1/(1 - G)) on 0 <= G < 1, and the success rate is G (1 - G). *)
Definition shared_backlog (d : list R) (G : R) : R := G * (stage_poly d G + / (1 - G)).

Definition shared_success (G : R) : R := G * (1 - G).

Lemma shared_backlog_increasing : forall d G1 G2, List.Forall (Rle 0) d ->
  0 <= G1 < G2 -> G2 < 1 -> shared_backlog d G1 < shared_backlog d G2.
Proof.
  intros d G1 G2 Hd HG H1. unfold shared_backlog.
  pose proof (stage_poly_nonneg d G1 Hd ltac:(lra)).
  pose proof (stage_poly_mono d G1 G2 Hd ltac:(lra)).
  assert (Hi1 : 1 <= / (1 - G1)).
  { apply (Rmult_le_reg_r (1 - G1)); [lra |]. rewrite Rinv_l by lra. lra. }
  assert (Hi : / (1 - G1) <= / (1 - G2)) by (apply Rinv_le_contravar; lra).
  nra.
Qed.

Lemma shared_backlog_injective : forall d G1 G2, List.Forall (Rle 0) d ->
  0 <= G1 < 1 -> 0 <= G2 < 1 -> shared_backlog d G1 = shared_backlog d G2 -> G1 = G2.
Proof.
  intros d G1 G2 Hd H1 H2 He.
  destruct (Rtotal_order G1 G2) as [Hl | [Heq | Hg]]; [| exact Heq |].
  - pose proof (shared_backlog_increasing d G1 G2 Hd ltac:(lra) ltac:(lra)). lra.
  - pose proof (shared_backlog_increasing d G2 G1 Hd ltac:(lra) ltac:(lra)). lra.
Qed.

Lemma shared_backlog_order : forall d G1 G2, List.Forall (Rle 0) d ->
  0 <= G1 < 1 -> 0 <= G2 < 1 -> shared_backlog d G1 < shared_backlog d G2 -> G1 < G2.
Proof.
  intros d G1 G2 Hd H1 H2 Hlt.
  destruct (Rtotal_order G1 G2) as [Hl | [He | Hg]]; [exact Hl | subst; lra |].
  pose proof (shared_backlog_increasing d G2 G1 Hd ltac:(lra) ltac:(lra)). lra.
Qed.

(** Every backlog n >= 0 has exactly one attempt rate G in [0, 1). *)
Theorem mean_field_shared_attempt_rate : forall (d : list R) (n : R), List.Forall (Rle 0) d -> 0 <= n ->
  exists! G : R, 0 <= G < 1 /\ shared_backlog d G = n.
Proof.
  intros d n Hd Hn.
  assert (Hex : exists G, 0 <= G < 1 /\ shared_backlog d G = n).
  { destruct (Req_dec n 0) as [-> | Hn0].
    { exists 0. split; [lra | unfold shared_backlog; ring]. }
    set (G1 := n / (1 + n)).
    assert (HG1 : 0 < G1 < 1) by (unfold G1; split; [apply Rdiv_lt_0_compat; lra |
      apply (Rmult_lt_reg_r (1 + n)); [lra |]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l; lra]).
    assert (Hinv : / (1 - G1) = 1 + n) by (unfold G1; field; lra).
    pose proof (stage_poly_nonneg d G1 Hd ltac:(lra)) as Hp.
    destruct (Req_dec (shared_backlog d G1) n) as [Heq | Hne]; [exists G1; split; [lra | exact Heq] |].
    assert (Hup : 0 < shared_backlog d G1 - n).
    { unfold shared_backlog in *. rewrite Hinv in *.
      assert (G1 * (1 + n) = n) by (unfold G1; field; lra).
      assert (0 <= G1 * stage_poly d G1) by (apply Rmult_le_pos; lra). nra. }
    destruct (IVT_interv (fun G => shared_backlog d G - n) 0 G1) as [G [HG HGn]].
    - intros a Ha. apply continuity_pt_filterlim, (ex_derive_continuous (fun G => shared_backlog d G - n)).
      apply (ex_derive_minus (fun G => shared_backlog d G) (fun _ => n)); [| apply ex_derive_const].
      unfold shared_backlog.
      apply (ex_derive_mult (fun G => G) (fun G => stage_poly d G + / (1 - G))); [apply ex_derive_id |].
      apply (ex_derive_plus (fun G => stage_poly d G) (fun G => / (1 - G))); [apply stage_poly_derive |].
      auto_derive. lra.
    - lra.
    - unfold shared_backlog. simpl. lra.
    - exact Hup.
    - exists G. split; [lra | simpl in HGn; lra]. }
  destruct Hex as [G [HG HGn]]. exists G. split; [split; [exact HG | exact HGn] |].
  intros G' [HG' HG'n]. apply (shared_backlog_injective d); [exact Hd | lra | lra | lra].
Qed.

(** shared below the peak 1/4: two fixed points, the low one stable, the high one unstable. *)
Theorem mean_field_shared_fixed_points : forall (d : list R) (lambda : R),
  List.Forall (Rle 0) d -> 0 < lambda < / 4 ->
  exists n_s n_u : R, 0 < n_s < n_u /\
  forall G : R, 0 <= G < 1 ->
    (shared_success G = lambda <-> shared_backlog d G = n_s \/ shared_backlog d G = n_u) /\
    (shared_backlog d G < n_s -> shared_success G < lambda) /\
    (n_s < shared_backlog d G < n_u -> lambda < shared_success G) /\
    (n_u < shared_backlog d G -> shared_success G < lambda).
Proof.
  intros d lambda Hd Hl.
  set (s := sqrt (1 - 4 * lambda)).
  assert (Hs2 : s * s = 1 - 4 * lambda) by (unfold s; apply sqrt_sqrt; lra).
  assert (Hs0 : 0 < s) by (unfold s; apply sqrt_lt_R0; lra).
  assert (Hs1 : s < 1) by nra.
  set (Gs := (1 - s) / 2). set (Gu := (1 + s) / 2).
  assert (Hfac : forall G, shared_success G - lambda = - ((G - Gs) * (G - Gu)))
    by (intro G; unfold shared_success, Gs, Gu; nra).
  assert (HGs : 0 < Gs < Gu) by (unfold Gs, Gu; lra).
  assert (HGu : Gu < 1) by (unfold Gu; lra).
  set (h := shared_backlog d).
  assert (Hord : forall x y, 0 <= x < 1 -> 0 <= y < 1 -> h x < h y -> x < y)
    by (intros; apply (shared_backlog_order d); assumption).
  exists (h Gs), (h Gu). split.
  { split.
    - unfold h, shared_backlog. pose proof (stage_poly_nonneg d Gs Hd ltac:(lra)).
      assert (0 < / (1 - Gs)) by (apply Rinv_0_lt_compat; lra). nra.
    - apply shared_backlog_increasing; [exact Hd | lra | lra]. }
  intros G HG.
  assert (Hbelow : h G < h Gs -> shared_success G < lambda).
  { intro Hlt. pose proof (Hord G Gs HG ltac:(lra) Hlt). pose proof (Hfac G). nra. }
  assert (Hbetween : h Gs < h G < h Gu -> lambda < shared_success G).
  { intros [Hb1 Hb2]. pose proof (Hord Gs G ltac:(lra) HG Hb1). pose proof (Hord G Gu HG ltac:(lra) Hb2).
    pose proof (Hfac G). nra. }
  assert (Habove : h Gu < h G -> shared_success G < lambda).
  { intro Hlt. pose proof (Hord Gu G ltac:(lra) HG Hlt). pose proof (Hfac G). nra. }
  split; [| split; [exact Hbelow | split; [exact Hbetween | exact Habove]]].
  split.
  - intro Heq. fold h.
    destruct (Rtotal_order (h G) (h Gs)) as [Hlt | [Hes | Hgt]]; [pose proof (Hbelow Hlt); lra | left; exact Hes |].
    destruct (Rtotal_order (h G) (h Gu)) as [Hlt | [Heu | Hgt']]; [pose proof (Hbetween (conj Hgt Hlt)); lra | right; exact Heu |].
    pose proof (Habove Hgt'); lra.
  - intros [E | E].
    + assert (G = Gs) as -> by (apply (shared_backlog_injective d); [exact Hd | lra | lra | exact E]).
      pose proof (Hfac Gs). lra.
    + assert (G = Gu) as -> by (apply (shared_backlog_injective d); [exact Hd | lra | lra | exact E]).
      pose proof (Hfac Gu). lra.
Qed.

(** shared above the peak 1/4: no fixed point. *)
Theorem mean_field_shared_above_peak : forall (lambda G : R), / 4 < lambda -> shared_success G < lambda.
Proof.
  intros lambda G Hl. unfold shared_success.
  assert (G * (1 - G) <= / 4) by (assert (0 <= (G - 1 / 2) * (G - 1 / 2)) by apply Rle_0_sqr; nra).
  lra.
Qed.

(** The passage estimate of the collapse load (steady.hpp: mean_passage_time): the backlog as a
    birth-death chain, up at rate `up` from every state and down at rate d_n from state n >= 1. The
    mean time tau_n to go from n to n + 1 solves the first-step equation
    tau_n = 1/(up + d_n) + d_n/(up + d_n) (tau_(n-1) + tau_n), whose solution is the code's
    recursion tau_n = (1 + d_n tau_(n-1))/up, tau_0 = 1/up (passage_first_step; that the mean
    passage time satisfies the first-step equation is the standard argument, cited: Karlin & Taylor,
    A First Course in Stochastic Processes, ch. 4). Their sum, the mean time from 0 to K, decreases
    as the load `up` grows and grows with K (passage_time_monotone): so the least load whose time
    fits in the horizon is a threshold, and it cannot fall as K rises. *)
Fixpoint passage_from (up tau : R) (down : list R) : R :=
  match down with
  | nil => tau
  | d :: t => tau + passage_from up ((1 + d * tau) / up) t
  end.

Definition passage_time (down : list R) (up : R) : R := passage_from up (/ up) down.

Theorem passage_first_step : forall up d tau_prev : R, 0 < up -> 0 <= d ->
  (1 + d * tau_prev) / up = / (up + d) + d / (up + d) * (tau_prev + (1 + d * tau_prev) / up).
Proof. intros up d tau_prev Hup Hd. field. lra. Qed.

Lemma passage_from_nonneg : forall up tau down, 0 < up -> 0 <= tau -> List.Forall (Rle 0) down ->
  0 <= passage_from up tau down.
Proof.
  intros up tau down Hup. revert tau. induction down as [| d t IH]; intros tau Htau Hd; simpl; [lra |].
  inversion Hd as [| ? ? Hd0 Ht]; subst.
  assert (0 <= (1 + d * tau) / up) by (apply Rdiv_le_0_compat; nra).
  pose proof (IH _ H Ht). lra.
Qed.

Lemma passage_from_mono : forall down up1 up2 tau1 tau2, List.Forall (Rle 0) down ->
  0 < up1 <= up2 -> 0 <= tau2 <= tau1 -> passage_from up2 tau2 down <= passage_from up1 tau1 down.
Proof.
  intros down. induction down as [| d t IH]; intros up1 up2 tau1 tau2 Hd Hup Htau; simpl; [lra |].
  inversion Hd as [| ? ? Hd0 Ht]; subst.
  assert (Hi : / up2 <= / up1) by (apply Rinv_le_contravar; lra).
  assert (H0 : 0 <= (1 + d * tau2) / up2) by (apply Rdiv_le_0_compat; nra).
  assert (Hle : (1 + d * tau2) / up2 <= (1 + d * tau1) / up1).
  { unfold Rdiv. apply Rmult_le_compat; [nra | left; apply Rinv_0_lt_compat; lra | nra | exact Hi]. }
  pose proof (IH up1 up2 _ _ Ht Hup (conj H0 Hle)). lra.
Qed.

Lemma passage_from_extend : forall down up tau d, 0 < up -> 0 <= tau -> List.Forall (Rle 0) down -> 0 <= d ->
  passage_from up tau down <= passage_from up tau (down ++ d :: nil).
Proof.
  intros down. induction down as [| x t IH]; intros up tau d Hup Htau Hdown Hd; simpl.
  - assert (0 <= (1 + d * tau) / up) by (apply Rdiv_le_0_compat; nra). lra.
  - inversion Hdown as [| ? ? Hx Ht]; subst.
    assert (0 <= (1 + x * tau) / up) by (apply Rdiv_le_0_compat; nra).
    pose proof (IH up _ d Hup H Ht Hd). lra.
Qed.

Theorem passage_time_monotone : forall (down : list R) (up1 up2 d : R),
  List.Forall (Rle 0) down -> 0 < up1 <= up2 -> 0 <= d ->
  passage_time down up2 <= passage_time down up1 /\
  passage_time down up1 <= passage_time (down ++ d :: nil) up1.
Proof.
  intros down up1 up2 d Hd Hup Hd0. unfold passage_time. split.
  - apply passage_from_mono; [exact Hd | exact Hup |].
    split; [left; apply Rinv_0_lt_compat; lra | apply Rinv_le_contravar; lra].
  - apply passage_from_extend; [lra | left; apply Rinv_0_lt_compat; lra | exact Hd | exact Hd0].
Qed.

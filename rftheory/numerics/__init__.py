"""Mathematics shared by several papers: special functions and their float64
forms (:mod:`.special`), error-free float64 arithmetic (:mod:`.floats`) and
the geometry of a pair of inputs (:mod:`.geometry`)."""

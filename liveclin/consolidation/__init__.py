"""Expert-guided consolidation (LiveClin App. I, J): keyword rules and explicit mappings group
granular stage and modality labels into intermediate and final categories; physicians review each
label's place; every change is a new version, and reports name the version they used."""

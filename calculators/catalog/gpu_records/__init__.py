"""GPU catalog records by vendor and generation; :mod:`calculators.catalog.gpus` assembles them."""

"""More domains a random shape draws from (see :mod:`.vocabulary`): the same three collections
and calendar each, with parties of a few more kinds (some with a tier or a licence class)."""

from __future__ import annotations

from benchmarks.zoo.random_shapes.fields import LINK, PARTY, Domain, Entity, cat, num, of

MORE_DOMAINS = (
    Domain(
        "Craft brewery",
        "A brewery's batches, the distributors buying them and their shipments, with gravity "
        "readings per date.",
        Entity(
            "batch",
            "batches",
            "BA",
            (
                of("brew_name", "title", "recipe", "beer"),
                cat("style", "lager stout porter saison ipa", "beer_style"),
                cat("vessel", "steel wood clay", "tank_type", "fermenter"),
                num("volume_hl", 5, 120, "hectolitres", "size_hl"),
                num("ibu", 8.0, 95.0, "bitterness"),
                of("brewed", "date", "brewed_on", "mash_date", years=(2023, 2025)),
            ),
        ),
        Entity(
            "distributor",
            "distributors",
            "DI",
            (*PARTY, cat("tier", "gold silver bronze", "level")),
        ),
        Entity(
            "shipment",
            "shipments",
            "SP",
            (*LINK, num("kegs", 1, 80, "keg_count"), num("invoice", 90.0, 15000.0, "billed")),
        ),
        "readings",
        (num("gravity", 1.0, 1.12, "sg"), num("temp_c", 2.0, 24.0, "temperature")),
    ),
    Domain(
        "Museum registry",
        "A museum's artworks, the lenders they come from and the loans between them, with "
        "condition checks per date.",
        Entity(
            "artwork",
            "artworks",
            "AW",
            (
                of("title", "title", "work_title", "name"),
                cat("medium", "oil tempera bronze marble ink", "material", "technique"),
                cat("period", "baroque modern gothic renaissance", "era", "movement"),
                num("height_cm", 10, 600, "height"),
                num("insured_value", 1000.0, 9000000.0, "valuation", "insurance"),
                of("acquired", "date", "acquired_on", "accession_date", years=(1900, 2024)),
            ),
        ),
        Entity("lender", "lenders", "LE", PARTY),
        Entity(
            "loan",
            "loans",
            "LN",
            (*LINK, num("weeks", 2, 52, "duration_weeks"), num("fee", 500.0, 90000.0, "charge")),
        ),
        "checks",
        (num("humidity", 35, 65, "rh"), num("lux", 20.0, 300.0, "light")),
    ),
    Domain(
        "Wind farm operations",
        "A wind farm's turbines, the technicians servicing them and their service visits, "
        "with output logs per date.",
        Entity(
            "turbine",
            "turbines",
            "WT",
            (
                of("tag", "title", "turbine_name", "label"),
                cat("maker", "vestas enercon nordex siemens", "manufacturer", "oem"),
                cat("site", "onshore offshore ridge", "location_type"),
                num("rated_mw", 1.5, 15.0, "capacity_mw", "rating"),
                num("hub_m", 60, 160, "hub_height", "tower_m"),
                of("grid_city", "city", "substation", "grid_point"),
            ),
        ),
        Entity(
            "technician",
            "technicians",
            "TC",
            (*PARTY, cat("licence", "gwo_basic gwo_advanced hv_switching", "certificate")),
        ),
        Entity(
            "visit",
            "visits",
            "VS",
            (*LINK, num("hours", 1, 16, "duration_h"), cat("reason", "gearbox blade yaw pitch")),
        ),
        "outputs",
        (num("mwh", 0.0, 320.0, "energy"), num("avail_pct", 40.0, 100.0, "availability")),
    ),
    Domain(
        "Apiary records",
        "A beekeeping cooperative's hives, the keepers tending them and their inspections, "
        "with hive weights per date.",
        Entity(
            "hive",
            "hives",
            "HI",
            (
                of("hive_name", "title", "name", "colony"),
                cat("breed", "carniolan italian buckfast caucasian", "race", "strain"),
                cat("box", "langstroth dadant warre topbar", "hive_type"),
                num("frames", 5, 40, "frame_count"),
                num("honey_kg", 0.0, 85.0, "yield", "harvest_kg"),
                of("apiary", "city", "yard", "site"),
            ),
        ),
        Entity("keeper", "keepers", "KP", PARTY),
        Entity(
            "inspection",
            "inspections",
            "IN",
            (*LINK, num("minutes", 5, 90, "duration"), cat("temper", "calm nervous defensive")),
        ),
        "weights",
        (num("kg", 18.0, 95.0, "weight_kg", "mass"), num("brood", 0, 10, "brood_frames")),
    ),
    Domain(
        "Film archive",
        "A film archive's reels, the researchers requesting them and their requests, with "
        "scan jobs per date.",
        Entity(
            "reel",
            "reels",
            "RL",
            (
                of("film_title", "title", "title", "work"),
                cat("gauge", "8mm 16mm 35mm 70mm", "format", "film_gauge"),
                cat("stock", "nitrate acetate polyester", "base", "film_base"),
                num("length_ft", 50, 6000, "feet", "footage"),
                num("fps", 16.0, 30.0, "frame_rate"),
                of("shot", "date", "filmed_on", "production_date", years=(1920, 1999)),
            ),
        ),
        Entity(
            "researcher",
            "researchers",
            "RS",
            (*PARTY, cat("affiliation", "university press broadcaster", "institution")),
        ),
        Entity(
            "request",
            "requests",
            "RQ",
            (*LINK, num("pages", 1, 40, "copies"), num("quote", 20.0, 4000.0, "cost")),
        ),
        "scans",
        (num("dpi", 1200, 8000, "resolution"), num("defects", 0, 250, "dust_count")),
    ),
)

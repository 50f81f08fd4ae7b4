"""The domains a random shape draws from (the first eight; :mod:`.domains_more` holds the
rest): each domain's three collections, its per-record calendar, and the fields of each, with
the other names a service might give a field."""

from __future__ import annotations

from benchmarks.zoo.random_shapes.domains_more import MORE_DOMAINS
from benchmarks.zoo.random_shapes.fields import LINK, PARTY, Domain, Entity, cat, num, of

_FIRST = (
    Domain(
        "Marina office",
        "A marina's boats, their owners and charters, with berth bookings per night.",
        Entity(
            "boat",
            "boats",
            "BT",
            (
                of("name", "title", "boat_name"),
                cat("hull", "sloop ketch catamaran trawler rib", "hull_type", "rig"),
                cat("flag", "NO SE DK GB NL"),
                num("length_m", 5.5, 32.0, "loa_m", "length"),
                num("built", 1965, 2024, "year_built", "build_year"),
                of("home_port", "city", "port", "harbour"),
            ),
        ),
        Entity("owner", "owners", "OW", PARTY),
        Entity(
            "charter",
            "charters",
            "CH",
            (*LINK, num("days", 1, 21, "duration_days"), num("price", 150.0, 9000.0, "amount")),
        ),
        "berths",
        (num("berth", 1, 240, "berth_no"), num("rate", 18.0, 95.0, "nightly_rate")),
    ),
    Domain(
        "Observatory scheduler",
        "An observatory's telescopes, the astronomers using them and their observing runs.",
        Entity(
            "telescope",
            "telescopes",
            "TS",
            (
                of("name", "title", "designation"),
                cat("mount", "equatorial altazimuth dobsonian", "mount_type"),
                cat("band", "optical infrared radio ultraviolet", "wavelength_band"),
                num("aperture_cm", 20, 1000, "aperture", "diameter_cm"),
                num("focal_ratio", 2.0, 16.0, "f_ratio"),
                of("commissioned", "date", "first_light", years=(1950, 2023)),
            ),
        ),
        Entity("astronomer", "astronomers", "AS", PARTY),
        Entity(
            "run",
            "runs",
            "RN",
            (*LINK, num("hours", 1, 12, "duration_h"), cat("target", "M31 M42 M51 NGC891 Vega")),
        ),
        "nights",
        (num("seeing", 0.4, 3.5, "seeing_arcsec"), num("cloud_pct", 0, 100, "clouds")),
    ),
    Domain(
        "Vineyard cellar",
        "A wine estate's barrels, its trade customers and their orders, with tastings per date.",
        Entity(
            "barrel",
            "barrels",
            "BR",
            (
                of("label", "title", "cuvee"),
                cat("grape", "riesling pinot gamay syrah chenin", "variety", "cepage"),
                cat("oak", "french american hungarian none", "wood"),
                num("litres", 110, 600, "volume_l", "capacity"),
                num("abv", 9.5, 15.5, "alcohol", "alcohol_pct"),
                of("filled", "date", "filled_on", "fill_date", years=(2015, 2025)),
            ),
        ),
        Entity("customer", "customers", "CU", PARTY),
        Entity(
            "order",
            "orders",
            "OR",
            (*LINK, num("bottles", 6, 600, "qty"), num("total", 40.0, 12000.0, "amount")),
        ),
        "tastings",
        (num("score", 70, 100, "points"), num("sugar_g", 0.5, 45.0, "residual_sugar")),
    ),
    Domain(
        "Radio network",
        "A radio network's stations, the hosts of its shows and the shows they broadcast.",
        Entity(
            "station",
            "stations",
            "ST",
            (
                of("call_sign", "title", "callsign", "name"),
                cat("format", "news talk jazz classical pop", "genre"),
                cat("band", "FM AM DAB web"),
                num("frequency", 87.5, 108.0, "freq_mhz", "mhz"),
                num("power_kw", 1, 100, "power", "erp_kw"),
                of("city", "city", "licence_city", "market"),
            ),
        ),
        Entity("host", "hosts", "HO", PARTY),
        Entity(
            "show",
            "shows",
            "SH",
            (*LINK, num("minutes", 15, 240, "length_min"), num("listeners", 100, 90000)),
        ),
        "ratings",
        (num("share_pct", 0.1, 30.0, "share"), num("reach", 500, 250000, "audience")),
    ),
    Domain(
        "Hotel front desk",
        "A hotel group's rooms, its guests and their stays, with rates per night.",
        Entity(
            "room",
            "rooms",
            "RM",
            (
                of("name", "title", "room_name"),
                cat("category", "single double suite family", "room_type", "kind"),
                cat("view", "sea garden street courtyard", "outlook"),
                num("floor", 0, 24, "level", "storey"),
                num("area_m2", 12.0, 110.0, "size_m2", "surface"),
                of("hotel_city", "city", "location", "city"),
            ),
        ),
        Entity("guest", "guests", "GU", PARTY),
        Entity(
            "stay",
            "stays",
            "SY",
            (*LINK, num("nights", 1, 14, "night_count"), num("paid", 60.0, 6000.0, "amount")),
        ),
        "calendar",
        (num("rate", 49.0, 640.0, "price", "nightly"), num("left", 0, 12, "available")),
    ),
    Domain(
        "Rail depot",
        "A rail operator's locomotives, the drivers rostered on them and their turns.",
        Entity(
            "locomotive",
            "locomotives",
            "LK",
            (
                of("nickname", "title", "name"),
                cat("traction", "diesel electric hybrid steam", "power_type"),
                cat("livery", "red blue green silver", "colour", "paint"),
                num("power_kw", 300, 6400, "rated_power", "kw"),
                num("top_speed", 60, 250, "vmax", "max_kmh"),
                of("depot", "city", "home_depot", "shed"),
            ),
        ),
        Entity("driver", "drivers", "DR", PARTY),
        Entity(
            "turn",
            "turns",
            "TU",
            (*LINK, num("km", 20, 900, "distance_km"), num("delay_min", 0, 180, "late_by")),
        ),
        "maintenance",
        (num("mileage", 1000, 900000, "odometer"), num("oil_l", 0.0, 60.0, "oil_added")),
    ),
    Domain(
        "Drone fleet",
        "A survey company's drones, the pilots flying them and their flights, with battery "
        "checks per date.",
        Entity(
            "drone",
            "drones",
            "DN",
            (
                of("callsign", "title", "tail_name", "name"),
                cat("airframe", "quad hexa fixed_wing vtol", "frame", "type"),
                cat("payload", "lidar rgb thermal multispectral", "sensor"),
                num("mass_g", 250, 24000, "weight_g", "mtow_g"),
                num("endurance_min", 12.0, 180.0, "flight_time", "max_minutes"),
                of("base", "city", "home_base", "hangar"),
            ),
        ),
        Entity("pilot", "pilots", "PL", PARTY),
        Entity(
            "flight",
            "flights",
            "FL",
            (*LINK, num("minutes", 3, 150, "airtime"), num("area_ha", 0.5, 800.0, "hectares")),
        ),
        "checks",
        (num("cycles", 1, 900, "charge_cycles"), num("health_pct", 55.0, 100.0, "soh")),
    ),
    Domain(
        "Greenhouse operations",
        "A nursery's greenhouse beds, the growers tending them and their harvests, with "
        "sensor logs per date.",
        Entity(
            "bed",
            "beds",
            "BD",
            (
                of("crop_name", "title", "planting", "label"),
                cat("crop", "tomato basil lettuce pepper strawberry", "species", "plant"),
                cat("medium", "soil coir rockwool hydro", "substrate"),
                num("area_m2", 4, 400, "size", "surface_m2"),
                num("ph", 5.2, 7.8, "soil_ph", "acidity"),
                of("sown", "date", "sown_on", "planted", years=(2024, 2025)),
            ),
        ),
        Entity("grower", "growers", "GR", PARTY),
        Entity(
            "harvest",
            "harvests",
            "HV",
            (*LINK, num("kg", 1.0, 900.0, "yield_kg", "weight"), cat("grade", "A B C")),
        ),
        "sensors",
        (num("temp_c", 12.0, 34.0, "temperature"), num("humidity", 40, 98, "rh_pct")),
    ),
)

DOMAINS: tuple[Domain, ...] = (*_FIRST, *MORE_DOMAINS)

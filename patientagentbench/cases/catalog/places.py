"""Where patients live and get care: cities, streets, insurers, pharmacies and specialties."""

from __future__ import annotations

from dataclasses import dataclass

from .conditions import CONDITIONS


@dataclass(frozen=True)
class City:
    name: str
    state: str
    zip: str
    area_code: str


CITIES: tuple[City, ...] = tuple(
    City(*row)
    for row in (
        ("Springfield", "IL", "62704", "217"),
        ("Chicago", "IL", "60629", "773"),
        ("Columbus", "OH", "43215", "614"),
        ("Cleveland", "OH", "44109", "216"),
        ("Phoenix", "AZ", "85016", "602"),
        ("Tucson", "AZ", "85719", "520"),
        ("Houston", "TX", "77004", "713"),
        ("San Antonio", "TX", "78210", "210"),
        ("El Paso", "TX", "79912", "915"),
        ("Dallas", "TX", "75206", "214"),
        ("Atlanta", "GA", "30310", "404"),
        ("Savannah", "GA", "31401", "912"),
        ("Miami", "FL", "33125", "305"),
        ("Tampa", "FL", "33603", "813"),
        ("Orlando", "FL", "32803", "407"),
        ("Charlotte", "NC", "28205", "704"),
        ("Raleigh", "NC", "27604", "919"),
        ("Richmond", "VA", "23220", "804"),
        ("Baltimore", "MD", "21218", "410"),
        ("Philadelphia", "PA", "19143", "215"),
        ("Pittsburgh", "PA", "15212", "412"),
        ("Newark", "NJ", "07104", "973"),
        ("Bronx", "NY", "10461", "718"),
        ("Buffalo", "NY", "14213", "716"),
        ("Boston", "MA", "02124", "617"),
        ("Worcester", "MA", "01604", "508"),
        ("Providence", "RI", "02908", "401"),
        ("Hartford", "CT", "06106", "860"),
        ("Detroit", "MI", "48209", "313"),
        ("Grand Rapids", "MI", "49504", "616"),
        ("Milwaukee", "WI", "53215", "414"),
        ("Minneapolis", "MN", "55407", "612"),
        ("St. Louis", "MO", "63116", "314"),
        ("Kansas City", "MO", "64111", "816"),
        ("Omaha", "NE", "68105", "402"),
        ("Denver", "CO", "80219", "303"),
        ("Albuquerque", "NM", "87108", "505"),
        ("Salt Lake City", "UT", "84104", "801"),
        ("Las Vegas", "NV", "89104", "702"),
        ("Los Angeles", "CA", "90019", "323"),
        ("Fresno", "CA", "93704", "559"),
        ("Sacramento", "CA", "95820", "916"),
        ("Oakland", "CA", "94601", "510"),
        ("San Diego", "CA", "92105", "619"),
        ("Portland", "OR", "97206", "503"),
        ("Seattle", "WA", "98118", "206"),
        ("Spokane", "WA", "99205", "509"),
        ("Boise", "ID", "83705", "208"),
        ("Nashville", "TN", "37207", "615"),
        ("Memphis", "TN", "38111", "901"),
        ("Louisville", "KY", "40210", "502"),
        ("Birmingham", "AL", "35205", "205"),
        ("Jackson", "MS", "39206", "601"),
        ("New Orleans", "LA", "70119", "504"),
        ("Little Rock", "AR", "72205", "501"),
        ("Oklahoma City", "OK", "73112", "405"),
        ("Des Moines", "IA", "50310", "515"),
        ("Indianapolis", "IN", "46203", "317"),
        ("Anchorage", "AK", "99508", "907"),
        ("Honolulu", "HI", "96817", "808"),
        ("Burlington", "VT", "05401", "802"),
        ("Portland", "ME", "04101", "207"),
        ("Billings", "MT", "59101", "406"),
        ("Fargo", "ND", "58103", "701"),
        ("Sioux Falls", "SD", "57105", "605"),
        ("Charleston", "WV", "25301", "304"),
        ("Columbia", "SC", "29201", "803"),
        ("Wilmington", "DE", "19801", "302"),
        ("Manchester", "NH", "03101", "603"),
    )
)

STREETS = (
    "Maple Ave",
    "Oak St",
    "Elm St",
    "Cedar Ln",
    "Washington Blvd",
    "Lincoln Ave",
    "Park Pl",
    "Pine St",
    "Lakeview Dr",
    "Highland Ave",
    "Jefferson St",
    "Ridge Rd",
    "Cherry St",
    "Willow Way",
    "Franklin St",
    "Sunset Blvd",
    "Mill Rd",
    "Church St",
    "Grant Ave",
    "Spring St",
    "Hillcrest Dr",
    "Meadow Ln",
    "Martin Luther King Jr Blvd",
    "Cesar Chavez Ave",
    "Magnolia St",
    "Walnut St",
    "Broad St",
    "Main St",
)

MEDICAID_NAMES = {
    "CA": "Medi-Cal",
    "MA": "MassHealth",
    "TN": "TennCare",
    "OR": "Oregon Health Plan",
    "WA": "Apple Health",
    "NJ": "NJ FamilyCare",
    "AZ": "AHCCCS",
    "OK": "SoonerCare",
    "WI": "BadgerCare Plus",
    "CO": "Health First Colorado",
    "CT": "HUSKY Health",
    "MI": "Healthy Michigan Plan",
    "TX": "Texas Medicaid STAR",
    "PA": "Medical Assistance",
}
KAISER_STATES = {"CA", "CO", "GA", "MD", "VA", "OR", "WA", "HI"}

COMMERCIAL_PLANS: tuple[tuple[str, str, str], ...] = (  # (insurer, plan, member-id prefix)
    ("Blue Cross Blue Shield", "Blue Choice PPO", "XOF"),
    ("Blue Cross Blue Shield", "BlueAdvantage HMO", "XOJ"),
    ("Aetna", "Choice POS II", "W"),
    ("Aetna", "Open Access Managed Choice", "W"),
    ("Cigna", "Open Access Plus", "U"),
    ("Cigna", "LocalPlus", "U"),
    ("UnitedHealthcare", "Choice Plus", ""),
    ("UnitedHealthcare", "Navigate HMO", ""),
    ("Ambetter", "Balanced Care Silver", "U7"),
)
MEDICARE_PLANS: tuple[tuple[str, str], ...] = (
    ("Medicare", "Original Medicare (Parts A and B) with Medigap Plan G"),
    ("Medicare", "Original Medicare (Parts A and B) with Part D"),
    ("Humana", "Humana Gold Plus HMO (Medicare Advantage)"),
    ("UnitedHealthcare", "AARP Medicare Advantage Choice PPO"),
    ("Aetna", "Aetna Medicare Eagle PPO"),
)

NATIONAL_PHARMACIES = ("CVS Pharmacy", "Walgreens", "Walmart Pharmacy", "Costco Pharmacy")
REGIONAL_PHARMACIES = {
    "Kroger Pharmacy": {"OH", "MI", "IN", "KY", "TN", "GA", "TX", "VA"},
    "Publix Pharmacy": {"FL", "GA", "AL", "SC", "NC", "TN", "VA"},
    "H-E-B Pharmacy": {"TX"},
    "Safeway Pharmacy": {"CA", "OR", "WA", "CO", "AZ", "MD", "AK", "HI"},
    "Hy-Vee Pharmacy": {"IA", "NE", "MN", "MO", "SD", "WI"},
    "Meijer Pharmacy": {"MI", "OH", "IN", "IL", "WI", "KY"},
    "Fred Meyer Pharmacy": {"OR", "WA", "ID", "AK"},
}
INDEPENDENT_PHARMACY_FORMATS = (
    "{surname} Family Pharmacy",
    "{street_word} Street Pharmacy",
    "{city} Community Pharmacy",
)

PCP_SPECIALTIES = ("Family Medicine", "Internal Medicine")
SPECIALTIES = tuple(
    sorted(
        {c.specialty for c in CONDITIONS.values()} | set(PCP_SPECIALTIES) | {"Geriatric Medicine"}
    )
)

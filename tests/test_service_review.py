"""The clerk's review page, driven in headless Chromium (Debian ``chromium`` + ``chromium-driver`` via
Selenium with an explicit driver path). The app comes from the real factory and serves real HTTP on
loopback; face matching, text matching and the store are real, the classifier and reader are the
injected stand-ins (tests/test_service_e2e.py repeats the flow against ``docauth serve`` with the
shipped models)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docauth.config import Settings
from docauth.imageio import encode_jpeg, encode_png
from docauth.pipeline import DecisionPolicy, Pipeline, Thresholds
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.loaders import load_text_matcher
from docauth.service.app import create_app
from pipeline_support import (ASTRONAUT_PERSON, FieldsReader, RuleClassifier, astronaut_portrait, document_of,
                              serve_in_thread)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("chromium / chromium-driver are not installed (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--window-size=1280,1500"):
        options.add_argument(arg)
    # An explicit driver path, so Selenium Manager never tries to download a driver or browser.
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from docauth.store import Store

    settings = Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("review"))
    store = Store.from_settings(settings)
    store.upgrade()
    faces = FaceStage.load()
    reader = FieldsReader()
    reader.next_fields = {k: ASTRONAUT_PERSON[k] for k in ("surname", "given_names", "date_of_birth",
                                                           "document_number", "nationality", "sex")}
    reader.next_fields["expiry_date"] = "2031-05-02"
    pipeline = Pipeline(classifier=RuleClassifier(), reader=reader, faces=faces,
                        text_matcher=load_text_matcher(settings), store=store,
                        policy=DecisionPolicy.from_settings(settings), thresholds=Thresholds.from_settings(settings))
    _, key = store.create_api_key("clerk")
    import skimage.data

    person, _ = store.enrol(ASTRONAUT_PERSON, faces=[(faces.encode_enrolment(skimage.data.astronaut()), "1" * 64)])
    app = create_app(settings, store=store, pipeline=pipeline)
    with serve_in_thread(app) as url:
        yield {"url": url, "key": key, "person_id": person.id}
    store.close()


def test_clerk_checks_a_document_and_sees_decision_reasons_stages_and_fields(site, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    document = tmp_path / "passport.jpg"
    document.write_bytes(encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False), 92))
    selfie = tmp_path / "selfie.png"
    import skimage.data

    selfie.write_bytes(encode_png(skimage.data.astronaut()))

    browser.get(site["url"] + "/")
    assert "docauth" in browser.title
    wait = WebDriverWait(browser, 60)

    # a wrong key is refused with the API's message
    browser.find_element(By.ID, "api-key").send_keys("dak_not-a-real-key-0000000000000000")
    browser.find_element(By.ID, "save-key").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "key-status"), "invalid_api_key"))

    key_box = browser.find_element(By.ID, "api-key")
    key_box.clear()
    key_box.send_keys(site["key"])
    browser.find_element(By.ID, "save-key").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "key-status"), "Signed in"))
    person = Select(browser.find_element(By.ID, "person"))
    assert any(ASTRONAUT_PERSON["surname"] in o.text for o in person.options)
    person.select_by_value(str(site["person_id"]))
    browser.find_element(By.ID, "image").send_keys(str(document))
    browser.find_element(By.ID, "run-check").click()
    wait.until(lambda d: d.find_element(By.ID, "decision").get_attribute("data-decision"))
    browser.save_screenshot(str(tmp_path / "review-accept.png"))

    decision = browser.find_element(By.ID, "decision")
    assert (decision.get_attribute("data-decision"), decision.text) == ("accept", "ACCEPT")
    stages = {tr.get_attribute("data-stage"): tr.text
              for tr in browser.find_elements(By.CSS_SELECTOR, "#stages tbody tr")}
    assert list(stages) == ["classify", "ocr", "face", "duplicates", "text"]
    assert "distance" in stages["face"]
    fields = browser.find_element(By.ID, "fields").text
    assert ASTRONAUT_PERSON["document_number"] in fields and ASTRONAUT_PERSON["surname"] in fields
    assert browser.find_element(By.ID, "preview").get_attribute("src").startswith("blob:")
    assert "Done in" in browser.find_element(By.ID, "check-status").text

    # a selfie: rejected, and the reason is listed with its code
    browser.find_element(By.ID, "image").send_keys(str(selfie))
    browser.find_element(By.ID, "run-check").click()
    wait.until(lambda d: d.find_element(By.ID, "decision").get_attribute("data-decision") == "reject")
    codes = [li.get_attribute("data-code") for li in browser.find_elements(By.CSS_SELECTOR, "#reasons li")]
    assert codes == ["not_a_document"]

    # the page loaded nothing from anywhere else
    entries = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert entries and all(e.startswith(site["url"]) or e.startswith("blob:") for e in entries), entries


def test_clerk_works_the_review_queue_and_the_decision_is_stored_with_who_and_when(site, browser, tmp_path):
    import datetime as dt

    import numpy as np
    import requests
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    blank = tmp_path / "blank-card.jpg"  # a "document" without a face, checked for no one: review
    blank.write_bytes(encode_jpeg(np.full((300, 500, 3), 200, np.uint8)))
    browser.get(site["url"] + "/")
    wait = WebDriverWait(browser, 60)
    key_box = browser.find_element(By.ID, "api-key")
    key_box.clear()
    key_box.send_keys(site["key"])
    browser.find_element(By.ID, "save-key").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "key-status"), "Signed in"))
    browser.find_element(By.ID, "image").send_keys(str(blank))
    browser.find_element(By.ID, "run-check").click()
    wait.until(lambda d: d.find_element(By.ID, "decision").get_attribute("data-decision") == "review")
    check_id = int(browser.find_element(By.ID, "result-check").text.strip("(check #)"))

    # the queue lists it; opening it shows the kept result and the desk's buttons
    queued = f"#queue button[data-check-id='{check_id}']"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, queued))
    browser.get(site["url"] + "/")  # a fresh page: everything comes from the API, not from the upload
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, queued))
    browser.find_element(By.CSS_SELECTOR, queued).click()
    wait.until(lambda d: d.find_element(By.ID, "decision").get_attribute("data-decision") == "review")
    reasons = {li.get_attribute("data-code"): li.text for li in browser.find_elements(By.CSS_SELECTOR, "#reasons li")}
    assert "face_not_found" in reasons and "no face was found" in reasons["face_not_found"]  # in words
    assert ASTRONAUT_PERSON["surname"] in browser.find_element(By.ID, "fields").text
    assert browser.find_element(By.ID, "desk").is_displayed()
    browser.find_element(By.ID, "decide-retake").click()
    wait.until(lambda d: d.find_element(By.ID, "desk-status").get_attribute("data-decided") == "retake")
    assert "by clerk" in browser.find_element(By.ID, "desk-status").text
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, queued))  # off the queue
    browser.save_screenshot(str(tmp_path / "review-desk.png"))

    # stored: who (the key's name) and when
    kept = requests.get(site["url"] + f"/v1/checks/{check_id}",
                        headers={"Authorization": f"Bearer {site['key']}"}, timeout=30).json()
    [decision] = kept["reviews"]
    assert (decision["decision"], decision["reviewer"]) == ("retake", "clerk")
    assert abs(dt.datetime.now(dt.timezone.utc) - dt.datetime.fromisoformat(decision["decided_at"])) \
        < dt.timedelta(minutes=2)


@pytest.fixture(scope="module")
def desk_site(tmp_path_factory):
    """The real reader (locate, rectify, MRZ, printed fields) and real faces, so the desk's boxes are real."""
    from docauth.ocr.reader import DocumentReader
    from docauth.store import Store

    settings = Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("desk"))
    store = Store.from_settings(settings)
    store.upgrade()
    pipeline = Pipeline(classifier=RuleClassifier(), reader=DocumentReader.load(), faces=FaceStage.load(),
                        text_matcher=load_text_matcher(settings), store=store,
                        policy=DecisionPolicy.from_settings(settings), thresholds=Thresholds.from_settings(settings))
    _, key = store.create_api_key("clerk-desk")
    app = create_app(settings, store=store, pipeline=pipeline)
    with serve_in_thread(app) as url:
        yield {"url": url, "key": key}
    store.close()


def test_the_desk_shows_the_rectified_document_with_boxes_the_record_and_the_enrolled_photo(desk_site, browser,
                                                                                           tmp_path):
    import requests
    import skimage.data
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    url, auth = desk_site["url"], {"Authorization": f"Bearer {desk_site['key']}"}
    # enrolled through the API with a photo; the record says M where the passport says F: a review, not a reject
    record = {**ASTRONAUT_PERSON, "sex": "M"}
    r = requests.post(url + "/v1/persons", headers=auth, data=record, timeout=60,
                      files={"photo": ("astronaut.png", encode_png(skimage.data.astronaut()), "image/png")})
    assert r.status_code == 201, r.text
    person_id = r.json()["id"]
    document = tmp_path / "passport.jpg"
    document.write_bytes(encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False), 92))

    browser.get(url + "/")
    wait = WebDriverWait(browser, 90)
    browser.find_element(By.ID, "api-key").send_keys(desk_site["key"])
    browser.find_element(By.ID, "save-key").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "key-status"), "Signed in"))
    browser.find_element(By.CSS_SELECTOR, f"#person option[value='{person_id}']").click()
    browser.find_element(By.ID, "image").send_keys(str(document))
    browser.find_element(By.ID, "run-check").click()
    wait.until(lambda d: d.find_element(By.ID, "decision").get_attribute("data-decision") in ("review", "accept",
                                                                                               "reject"))
    assert browser.find_element(By.ID, "decision").get_attribute("data-decision") == "review", \
        browser.find_element(By.ID, "raw").get_attribute("textContent")[:3000]
    check_id = int(browser.find_element(By.ID, "result-check").text.strip("(check #)"))

    # the kept result carries the geometry, never the image
    kept = requests.get(url + f"/v1/checks/{check_id}", headers=auth, timeout=30)
    geometry = kept.json()["geometry"]
    assert geometry["width"] > geometry["height"] > 0 and geometry["mrz"] and geometry["face"]
    assert geometry["fields"] and len(kept.content) < 100_000  # numbers and text, no pixels

    # a fresh page: opened from the queue, everything from the API
    browser.get(url + "/")
    queued = f"#queue button[data-check-id='{check_id}']"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, queued))
    browser.find_element(By.CSS_SELECTOR, queued).click()
    wait.until(lambda d: d.find_element(By.ID, "document-view").is_displayed())
    image = browser.find_element(By.ID, "document-image")
    # The view shows as soon as the check's JSON is in; its image arrives by a request of its own.
    wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    width, height = browser.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", image)
    assert width > height > 0  # the upright document, landscape like the passport page
    kinds = [b.get_attribute("data-kind") for b in browser.find_elements(By.CSS_SELECTOR, "#document-view .box")]
    assert kinds.count("mrz") == 1 and kinds.count("face") == 1 and kinds.count("field") >= 1, kinds
    mrz_box = browser.find_element(By.CSS_SELECTOR, "#document-view .box.mrz")
    assert mrz_box.size["width"] > 0.8 * image.size["width"]  # the zone runs across the page, drawn to scale

    # the fields beside the record, the difference marked
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#fields tr[data-field='sex'] td.record"))
    rows = {tr.get_attribute("data-field"): tr for tr in browser.find_elements(By.CSS_SELECTOR, "#fields tbody tr")}
    assert "differs" in rows["sex"].get_attribute("class")
    assert rows["sex"].find_element(By.CSS_SELECTOR, "td.record").text == "M"
    assert "differs" not in rows["surname"].get_attribute("class")
    assert rows["surname"].find_element(By.CSS_SELECTOR, "td.record").text == ASTRONAUT_PERSON["surname"]

    # the enrolled photo beside the document's portrait, and the distance
    wait.until(lambda d: d.execute_script("return document.getElementById('enrolled-photo').naturalWidth") > 0)
    assert browser.find_element(By.ID, "portrait").get_attribute("data-drawn") == "true"
    assert "Face distance" in browser.find_element(By.ID, "face-distance").text
    reasons = {li.get_attribute("data-code"): li.text for li in browser.find_elements(By.CSS_SELECTOR, "#reasons li")}
    assert "sex_mismatch" in reasons and "sex differs" in reasons["sex_mismatch"]
    browser.save_screenshot(str(tmp_path / "desk.png"))

    # ask for a new photo: stored with who and when, and the document image goes with the decision
    browser.find_element(By.ID, "decide-retake").click()
    wait.until(lambda d: d.find_element(By.ID, "desk-status").get_attribute("data-decided") == "retake")
    [decision] = requests.get(url + f"/v1/checks/{check_id}", headers=auth, timeout=30).json()["reviews"]
    assert (decision["decision"], decision["reviewer"]) == ("retake", "clerk-desk")
    gone = requests.get(url + f"/v1/checks/{check_id}/document.jpg", headers=auth, timeout=30)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "check_image_gone")

    # images are behind the key, and erased with the person
    photo = f"/v1/persons/{person_id}/photo.jpg"
    assert requests.get(url + photo, timeout=30).status_code == 401
    got = requests.get(url + photo, headers=auth, timeout=30)
    assert got.status_code == 200 and got.headers["Content-Type"] == "image/jpeg" and got.content[:2] == b"\xff\xd8"
    assert requests.delete(url + f"/v1/persons/{person_id}", headers=auth, timeout=30).status_code == 204
    assert requests.get(url + photo, headers=auth, timeout=30).status_code == 404
